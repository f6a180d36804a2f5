import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { buildCatalog } from "../../src/catalog/build-catalog.ts";
import type { CatalogCommand } from "../../src/catalog/catalog-types.ts";
import type { DiscoveredConda } from "../../src/discover/discover.ts";
import { buildArgv } from "../../src/schema/build-argv.ts";
import { validateArgs } from "../../src/schema/validate-args.ts";
import { argsArb } from "../support/arbitrary-args.ts";
import { buildInputSchema } from "../support/build-input-schema.ts";
import { condaDomainArb } from "../support/conda-domains.ts";
import { expandDocument } from "../support/expand-document.ts";
import { findParseMismatches } from "../support/find-parse-mismatches.ts";
import { introspectPython } from "../support/introspect-python.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { parseWithTarget } from "../support/parse-with-target.ts";
import { describeRealConda, useRealCondaSandbox } from "../support/real-conda.ts";

const RUNS_PER_TOOL = 40;

let fixture: FixtureConda;

beforeAll(async () => {
  fixture = await makeFixtureConda({ withCompletion: "0.3.2" });
});
afterAll(() => fixture?.cleanup());

/**
 * Draws valid arguments for every generated tool of a target, builds their argv, lets the
 * target's own argparse parse them all in one Python process, and returns every mismatch.
 */
async function roundTrip(
  python: string,
  env: Record<string, string | undefined>,
  conda: Pick<DiscoveredConda, "tree" | "preParser">,
) {
  const tools = buildCatalog(conda.tree, { preParser: conda.preParser }).commands.filter(
    (c) => c.status === "tool",
  );
  const cases: { command: CatalogCommand; args: Record<string, unknown>; argv: string[] }[] = [];
  for (const [index, command] of tools.entries()) {
    const schema = buildInputSchema(command);
    for (const args of fc.sample(argsArb(command, condaDomainArb(conda.tree, command)), {
      numRuns: RUNS_PER_TOOL,
      seed: 1000 + index,
    })) {
      const validated = validateArgs(command, schema, args);
      if (!validated.success) {
        throw new Error(
          `generator made invalid args for ${command.toolName}: ${JSON.stringify(validated.issues)}`,
        );
      }
      cases.push({ command, args: validated.output, argv: buildArgv(command, validated.output) });
    }
  }
  const outcomes = await parseWithTarget(
    python,
    cases.map((c) => c.argv),
    env,
    240_000,
  );
  const failures = cases.flatMap(({ command, args, argv }, i) =>
    findParseMismatches(conda.tree, command, args, argv, outcomes[i]),
  );
  return { tools: tools.length, cases: cases.length, failures };
}

describe("generated arguments survive the target's own argparse", () => {
  test("every generated fixture tool parses back to exactly the intended values", async () => {
    const payload = expandDocument(
      await introspectPython(fixture.python, {
        env: fixture.env,
        timeoutMs: 60_000,
        platform: process.platform,
      }),
    );
    const { tools, failures } = await roundTrip(fixture.python, fixture.env, {
      tree: payload.tree,
      preParser: payload.pre_parser,
    });
    expect(tools).toBeGreaterThan(25);
    expect(failures.slice(0, 10)).toEqual([]);
  }, 180_000);
});

describeRealConda("generated arguments survive the real conda's own parsing", () => {
  const sandbox = useRealCondaSandbox();

  test("every generated tool parses back to exactly the intended values, global pre-parse included", async () => {
    const { discovery, env } = sandbox();
    const { tools, failures } = await roundTrip(discovery.installation.python, env, discovery);
    expect(tools).toBeGreaterThan(30);
    expect(failures.slice(0, 10)).toEqual([]);
  }, 300_000);
});
