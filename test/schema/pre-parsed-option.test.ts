import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import fc from "fast-check";
import { runProcess } from "../../src/execute/run-process.ts";
import type { RawPreParser } from "../../src/introspection-payload.ts";
import { preParsedOption } from "../../src/schema/pre-parsed-option.ts";
import { introspectPython } from "../support/introspect-python.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { describeRealConda, useRealCondaSandbox } from "../support/real-conda.ts";

const JUDGE = join(import.meta.dir, "..", "support", "pre-parser-judge.py");

/** Tokens near conda's global options: prefixes, `=` forms, clusters, and other dashed text. */
function tokensNear(preParser: RawPreParser): string[] {
  const option = fc.constantFrom(...preParser.option_strings);
  const near = fc.oneof(
    option,
    fc.tuple(option, fc.nat(8)).map(([o, n]) => o.slice(0, Math.max(1, o.length - n))),
    fc.tuple(option, fc.string({ maxLength: 4 })).map(([o, s]) => `${o}=${s}`),
    fc.tuple(option, fc.string({ maxLength: 4 })).map(([o, s]) => `${o}${s}`),
    fc.tuple(fc.constantFrom("-", "--"), fc.string({ maxLength: 6 })).map(([d, s]) => `${d}${s}`),
    fc.constantFrom("-", "--", "-1", "-1.5", "-x y", "--=x", "-version", "--no-", "---json"),
  );
  return fc.sample(near, { numRuns: 400, seed: 7 });
}

/** For each token, whether the target's own pre-parser would take it. */
async function judge(python: string, env: Record<string, string>, tokens: string[]) {
  const run = await runProcess(
    { command: python, argv: ["-B", JUDGE], env, stdin: JSON.stringify(tokens) },
    { platform: process.platform, timeoutMs: 60_000, maxOutputBytes: 1024 * 1024 },
  );
  if (run.exit_code !== 0) throw new Error(`pre-parser-judge failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as boolean[];
}

async function disagreements(python: string, env: Record<string, string>) {
  const tree = await introspectPython(python, {
    env,
    platform: process.platform,
    timeoutMs: 60_000,
  });
  const preParser = tree.pre_parser;
  if (preParser === null) throw new Error("the target has no pre-parser");
  const tokens = tokensNear(preParser);
  const taken = await judge(python, env, tokens);
  // Both answers must occur, or the comparison proves nothing.
  expect(new Set(taken)).toEqual(new Set([true, false]));
  return tokens.flatMap((token, i) =>
    (preParsedOption(token, preParser) !== null) === taken[i]
      ? []
      : [`${JSON.stringify(token)}: conda ${taken[i] ? "takes" : "leaves"} it`],
  );
}

describe("preParsedOption agrees with conda's own pre-parser", () => {
  let fixture: FixtureConda;
  beforeAll(async () => {
    fixture = await makeFixtureConda();
  });
  afterAll(() => fixture?.cleanup());

  test("on the fixture conda, for 400 tokens near its global options", async () => {
    expect(await disagreements(fixture.python, fixture.env)).toEqual([]);
  }, 60_000);

  test.each([
    ["--json", "--json"],
    ["--js", "--json"],
    ["--verb", "--verbose"],
    ["-vvv", "-v"],
    ["-version", "-v"],
    ["--no-pl", "--no-plugins"],
    ["--json=1", "--json"],
    ["-x", null],
    ["-1", null],
    ["--", null],
    ["python", null],
  ])("%j is read as %j", (token, option) => {
    const preParser = {
      option_strings: ["-v", "--verbose", "--debug", "--trace", "--json", "--no-plugins"],
      allow_abbrev: true,
      prefix_chars: "-",
    };
    expect(preParsedOption(token, preParser)).toBe(option);
  });
});

describeRealConda("preParsedOption agrees with the real conda's pre-parser", () => {
  const sandbox = useRealCondaSandbox();

  test("for 400 tokens near its global options", async () => {
    expect(await disagreements(sandbox().discovery.installation.python, sandbox().env)).toEqual([]);
  }, 120_000);
});
