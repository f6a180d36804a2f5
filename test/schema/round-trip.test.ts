import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { buildCatalog } from "../../src/catalog/build-catalog.ts";
import type { CatalogCommand, Param } from "../../src/catalog/catalog-types.ts";
import { introspect } from "../../src/discover/introspect.ts";
import type { IntrospectionResult, RawAction, RawParser } from "../../src/discover/raw-tree.ts";
import { buildArgv } from "../../src/schema/build-argv.ts";
import { buildInputSchema } from "../../src/schema/build-input-schema.ts";
import { validateArgs } from "../../src/schema/validate-args.ts";
import { argsArb } from "../support/arbitrary-args.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { parseWithTarget } from "../support/parse-with-target.ts";

const RUNS_PER_TOOL = 40;
const NULL = { $null: true };

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

function rawParser(path: string[]): RawParser {
  let node = tree.tree;
  for (const name of path)
    node = node.subcommands.find((s) => s.path[s.path.length - 1] === name) as RawParser;
  return node;
}

function rawActionOf(command: CatalogCommand, param: Param): RawAction {
  const parser = rawParser(command.path);
  const found = parser.actions.find((a) =>
    param.option === null
      ? a.option_strings.length === 0 && a.dest === param.dest
      : a.option_strings.includes(param.option),
  );
  if (!found) throw new Error(`no action for ${param.name}`);
  return found;
}

/** conda's enum consts come as repr (`<DepsModifier.NO_DEPS: 'no_deps'>`); the parse helper gives their value. */
function constValue(action: RawAction): unknown {
  if (action.const !== null) return action.const;
  const match = /: '([^']*)'>$/.exec(action.const_repr);
  return match ? match[1] : null;
}

function scalar(action: RawAction, value: unknown): unknown {
  if (action.type === "comma_separated_stripped") {
    return String(value)
      .split(",")
      .map((s) => s.trim());
  }
  return value;
}

function defaultOf(action: RawAction): unknown {
  return action.default_is_conda_NULL ? NULL : action.default;
}

/** What the target's namespace must hold at the param's dest after parsing our argv. */
function expectedValue(action: RawAction, param: Param, value: unknown): unknown {
  const shape = param.shape;
  switch (shape.kind) {
    case "flag":
      return value === true ? constValue(action) : defaultOf(action);
    case "count":
      return value === 0 ? defaultOf(action) : value;
    case "toggle":
      return value;
    case "option": {
      const one = (occurrence: unknown) => {
        if (shape.arity.kind === "optional" && occurrence === true) return constValue(action);
        return Array.isArray(occurrence)
          ? occurrence.map((o) => scalar(action, o))
          : scalar(action, occurrence);
      };
      if (!shape.repeat) return one(value);
      const values = (value as unknown[]).map(one);
      if (values.length === 0) return defaultOf(action);
      return [...(Array.isArray(action.default) ? action.default : []), ...values];
    }
    case "extend_const":
      return (value as unknown[]).length === 0 ? [constValue(action)] : value;
    case "positional":
      return Array.isArray(value) ? value.map((v) => scalar(action, v)) : scalar(action, value);
    case "passthrough":
      return value;
  }
}

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

    const failures: string[] = [];
    for (const [i, { command, args, argv }] of cases.entries()) {
      const outcome = outcomes[i];
      if (!outcome?.ok) {
        failures.push(
          `${JSON.stringify(argv)} was refused: ${outcome?.stderr.trim().split("\n").pop()}`,
        );
        continue;
      }
      const namespace = outcome.namespace;
      for (const param of command.params) {
        if (!(param.name in args)) continue;
        const greedy = param.shape.kind === "passthrough" && param.shape.greedy;
        const dest = greedy ? "_args" : param.dest;
        // A greedy parser has no action: conda hands it the leftover arguments as they are.
        const expected = greedy
          ? args[param.name]
          : expectedValue(rawActionOf(command, param), param, args[param.name]);
        if (!Bun.deepEquals(namespace[dest], expected)) {
          failures.push(
            `${command.toolName} ${param.name}: argv ${JSON.stringify(argv)} gave ${JSON.stringify(namespace[dest])}, wanted ${JSON.stringify(expected)}`,
          );
        }
      }
    }
    expect(failures.slice(0, 10)).toEqual([]);
  }, 180_000);
});
