import { afterAll, beforeAll, expect, test } from "bun:test";
import type { IntrospectionResult, RawAction, RawParser } from "../../src/introspection-payload.ts";
import { expandDocument } from "../support/expand-document.ts";
import { introspectPython } from "../support/introspect-python.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { parseWithTarget } from "../support/parse-with-target.ts";
import {
  describeRealConda,
  makeRealCondaSandbox,
  type RealCondaSandbox,
} from "../support/real-conda.ts";

// The fixture is our model of conda; where the two differ, conda is right and the fixture is
// fixed. These compare them wherever both have the same command and option.

let fixture: FixtureConda;
let sandbox: RealCondaSandbox;
let fixtureTree: IntrospectionResult;

beforeAll(async () => {
  if (!process.env.CONDA_MCP_TEST_CONDA) return;
  fixture = await makeFixtureConda({ withCompletion: "0.3.2" });
  sandbox = await makeRealCondaSandbox();
  fixtureTree = expandDocument(
    await introspectPython(fixture.python, {
      env: fixture.env,
      timeoutMs: 60_000,
      platform: process.platform,
    }),
  );
}, 120_000);

afterAll(async () => {
  await fixture?.cleanup();
  await sandbox?.cleanup();
});

function parsersByPath(root: RawParser): Map<string, RawParser> {
  const found = new Map<string, RawParser>();
  const walk = (parser: RawParser) => {
    found.set(parser.path.join(" "), parser);
    parser.subcommands.forEach(walk);
  };
  walk(root);
  return found;
}

const keyOf = (action: RawAction) => action.option_strings[0] ?? `<${action.dest}>`;

/** What the catalog and the argv builder rely on, for one action. */
function shapeOf(action: RawAction): Record<string, unknown> {
  return {
    class: action.class,
    mro: action.mro,
    option_strings: action.option_strings,
    dest: action.dest,
    nargs: action.nargs,
    required: action.required,
    null_default: action.default_is_conda_NULL,
    hidden: action.help_suppressed,
    type: action.type,
    exclusive: action.mutually_exclusive_group !== null,
  };
}

describeRealConda("the fixture conda follows the real one", () => {
  test("every command and option both have is shaped alike", () => {
    const real = parsersByPath(sandbox.discovery.tree);
    const differences: string[] = [];
    let compared = 0;
    for (const [path, parser] of parsersByPath(fixtureTree.tree)) {
      const twin = real.get(path);
      if (!twin) continue;
      for (const action of parser.actions) {
        const other = twin.actions.find((a) => keyOf(a) === keyOf(action));
        if (!other) continue;
        compared++;
        if (!Bun.deepEquals(shapeOf(action), shapeOf(other)))
          differences.push(
            `${path} ${keyOf(action)}: fixture ${JSON.stringify(shapeOf(action))}, conda ${JSON.stringify(shapeOf(other))}`,
          );
      }
    }
    expect(compared).toBeGreaterThan(400);
    expect(differences).toEqual([]);
  });

  test("both have the same global pre-parser", () => {
    expect(fixtureTree.pre_parser).toEqual(sandbox.discovery.preParser);
  });

  test("both accept and refuse the same argvs where conda checks values itself", async () => {
    const argvs = [
      ["install", "numpy>=1.20", "conda-forge::scipy"],
      ["install", "bad;spec"],
      ["install", "two words"],
      ["create", "--name=two words"],
      ["create", "--name=a/b"],
      ["create", "--name="],
      ["create", "--prefix= "],
      ["search", "tinyhello"],
      ["run", "--name=base", "--", "echo", "--json", "-version"],
      ["run", "--name=base", "echo", "-version"],
      ["info", "--verb", "--js"],
      ["--no-pl", "info"],
    ];
    const verdicts = async (python: string, env: Record<string, string>) =>
      (await parseWithTarget(python, argvs, env, 120_000)).map((outcome, i) => ({
        argv: argvs[i],
        ok: outcome.ok,
        json: outcome.ok ? outcome.namespace.json : undefined,
      }));
    const [ours, conda] = await Promise.all([
      verdicts(fixture.python, fixture.env),
      verdicts(sandbox.discovery.installation.python, sandbox.env),
    ]);
    expect(ours).toEqual(conda);
  }, 120_000);
});
