import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { buildCatalog } from "../../src/catalog/build-catalog.ts";
import type { CatalogCommand } from "../../src/catalog/catalog-types.ts";
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

let fixture: FixtureConda;
let tree: IntrospectionResult;

beforeAll(async () => {
  fixture = await makeFixtureConda({ withCompletion: "0.3.2" });
  tree = await introspect(fixture.python, {
    env: fixture.env,
    timeoutMs: 60_000,
    platform: process.platform,
  });
});
afterAll(() => fixture?.cleanup());

describe("generated arguments survive the target's own argparse", () => {
  test("every generated fixture tool parses back to exactly the intended values", async () => {
    const catalog = buildCatalog(tree.tree);
    const tools = catalog.commands.filter((c) => c.status === "tool");
    expect(tools.length).toBeGreaterThan(25);
    const cases: { command: CatalogCommand; args: Record<string, unknown>; argv: string[] }[] = [];
    for (const [index, command] of tools.entries()) {
      const schema = buildInputSchema(command);
      for (const args of fc.sample(argsArb(command), {
        numRuns: RUNS_PER_TOOL,
        seed: 1000 + index,
      })) {
        const validated = validateArgs(command, schema, args);
        if (!validated.success)
          throw new Error(
            `generator made invalid args for ${command.toolName}: ${JSON.stringify(validated.issues)}`,
          );
        cases.push({ command, args: validated.output, argv: buildArgv(command, validated.output) });
      }
    }
    const outcomes = await parseWithTarget(
      fixture.python,
      cases.map((c) => c.argv),
      fixture.env,
      120_000,
    );

    const failures = cases.flatMap(({ command, args, argv }, i) =>
      findParseMismatches(tree.tree, command, args, argv, outcomes[i]),
    );
    expect(failures.slice(0, 10)).toEqual([]);
  }, 180_000);
});
