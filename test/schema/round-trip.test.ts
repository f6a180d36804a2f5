import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { buildCatalog } from "../../src/catalog/build-catalog.ts";
import type { CatalogCommand } from "../../src/catalog/catalog-types.ts";
import { discover } from "../../src/discover/discover.ts";
import { introspect } from "../../src/discover/introspect.ts";
import type { IntrospectionResult } from "../../src/discover/raw-tree.ts";
import { buildArgv } from "../../src/schema/build-argv.ts";
import { buildInputSchema } from "../../src/schema/build-input-schema.ts";
import { validateArgs } from "../../src/schema/validate-args.ts";
import { argsArb } from "../support/arbitrary-args.ts";
import { findParseMismatches } from "../support/find-parse-mismatches.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { parseWithTarget } from "../support/parse-with-target.ts";

const RUNS_PER_TOOL = 40;
const realConda = process.env.CONDA_MCP_TEST_CONDA;

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
  tree: IntrospectionResult,
) {
  const tools = buildCatalog(tree.tree).commands.filter((c) => c.status === "tool");
  const cases: { command: CatalogCommand; args: Record<string, unknown>; argv: string[] }[] = [];
  for (const [index, command] of tools.entries()) {
    const schema = buildInputSchema(command);
    for (const args of fc.sample(argsArb(command), {
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
    120_000,
  );
  const failures = cases.flatMap(({ command, args, argv }, i) =>
    findParseMismatches(tree.tree, command, args, argv, outcomes[i]),
  );
  return { tools: tools.length, cases: cases.length, failures };
}

describe("generated arguments survive the target's own argparse", () => {
  test("every generated fixture tool parses back to exactly the intended values", async () => {
    const tree = await introspect(fixture.python, {
      env: fixture.env,
      timeoutMs: 60_000,
      platform: process.platform,
    });
    const { tools, failures } = await roundTrip(fixture.python, fixture.env, tree);
    expect(tools).toBeGreaterThan(25);
    expect(failures.slice(0, 10)).toEqual([]);
  }, 180_000);

  test.skipIf(!realConda)(
    "every generated tool of a real conda parses back too (skipped unless CONDA_MCP_TEST_CONDA names a conda)",
    async () => {
      // A private HOME: conda must not see or touch the user's files.
      const home = await mkdtemp(join(tmpdir(), "conda-mcp-real-home-"));
      try {
        const env = { ...process.env, HOME: home };
        const discovery = await discover({
          explicitPath: realConda ?? null,
          env,
          platform: process.platform,
          timeoutMs: 120_000,
          cacheDir: null,
        });
        const { tools, failures } = await roundTrip(discovery.python, env, discovery.introspection);
        expect(tools).toBeGreaterThan(20);
        expect(failures.slice(0, 10)).toEqual([]);
      } finally {
        await rm(home, { recursive: true, force: true });
      }
    },
    300_000,
  );
});
