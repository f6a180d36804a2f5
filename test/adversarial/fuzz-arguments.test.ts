import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { buildCatalog } from "../../src/catalog/build-catalog.ts";
import type { CatalogCommand, Param } from "../../src/catalog/catalog-types.ts";
import type { IntrospectionResult } from "../../src/introspection-payload.ts";
import { buildArgv, paramTokens } from "../../src/schema/build-argv.ts";
import type { ToolSchema } from "../../src/schema/build-input-schema.ts";
import { type ArgumentIssue, validateArgs } from "../../src/schema/validate-args.ts";
import { createExecuteTool, type ExecuteLimits } from "../../src/server/execute-tool.ts";
import { buildInputSchema } from "../support/build-input-schema.ts";
import { expandDocument } from "../support/expand-document.ts";
import { introspectPython } from "../support/introspect-python.ts";

const validateExecuteInput = (raw: unknown, limits: ExecuteLimits) =>
  createExecuteTool(limits).validate(raw);

import { argsArb } from "../support/arbitrary-args.ts";
import { isDomainRefusal } from "../support/conda-domains.ts";
import { findParseMismatches, rawParserAt } from "../support/find-parse-mismatches.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { parseWithTarget } from "../support/parse-with-target.ts";
import {
  hostileArgsArb,
  hostileStringArb,
  hostileValueArb,
  PROTOTYPE_KEYS,
  submittedKeys,
  submittedStrings,
  throughJson,
} from "./hostile-input-arb.ts";
import { snapshotPrototypes } from "./snapshot-prototypes.ts";

// CONDA_MCP_FUZZ_SEED / CONDA_MCP_FUZZ_RUNS let a developer fuzz longer or elsewhere; the
// defaults keep CI deterministic.
const SEED = Number(process.env.CONDA_MCP_FUZZ_SEED ?? 20_260_701);
const RUNS_PER_TOOL = Number(process.env.CONDA_MCP_FUZZ_RUNS ?? 250);

/** conda pre-parses these from anywhere in argv before `--`, whatever the command. */
const GLOBAL_OPTIONS = ["-v", "--verbose", "--json", "--debug", "--trace", "--no-plugins"];

interface Tool {
  command: CatalogCommand;
  schema: ToolSchema;
  /** Every option string the command's parser knows, hidden ones and -h included. */
  optionStrings: string[];
  /** Text a correct issue may legitimately repeat: the tool's JSON Schema (names, choices). */
  vocabulary: string;
}

interface Accepted {
  tool: Tool;
  input: unknown;
  args: Record<string, unknown>;
  argv: string[];
}

let fixture: FixtureConda;
let tree: IntrospectionResult;
let tools: Tool[];

beforeAll(async () => {
  fixture = await makeFixtureConda({ withCompletion: "0.3.2" });
  tree = expandDocument(
    await introspectPython(fixture.python, {
      env: fixture.env,
      timeoutMs: 60_000,
      platform: process.platform,
    }),
  );
  tools = buildCatalog(tree.tree, { preParser: tree.pre_parser })
    .commands.filter((c) => c.status === "tool")
    .map((command) => {
      const schema = buildInputSchema(command);
      const own = rawParserAt(tree.tree, command.path).actions.flatMap((a) => a.option_strings);
      return {
        command,
        schema,
        optionStrings: [...new Set([...own, ...GLOBAL_OPTIONS])],
        vocabulary: JSON.stringify(schema.jsonSchema),
      };
    });
}, 60_000);

afterAll(() => fixture?.cleanup());

/** fast-check's report without the counterexample's megabytes: seed, path, error, a prefix. */
function compactReport(details: fc.RunDetails<[unknown]>): void {
  if (!details.failed) return;
  const example = JSON.stringify(details.counterexample?.[0]) ?? "undefined";
  throw new Error(
    `property failed (seed ${details.seed}, path ${details.counterexamplePath}): ${String(details.errorInstance).slice(0, 2000)}\ncounterexample (${example.length} chars): ${example.slice(0, 1500)}`,
  );
}

/** The JSON Pointer token validateArgs uses for a property name (escaped, shortened). */
function pointerToken(key: string): string {
  const raw = key.replace(/\p{Cc}/gu, "?");
  const shortened = raw.length > 64 ? `${raw.slice(0, 64)}…` : raw;
  return shortened.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** Problems with a refusal: paths that name nothing submitted, unknown wording, echoed values. */
function issueProblems(tool: Tool, input: unknown, issues: ArgumentIssue[]): string[] {
  const problems: string[] = [];
  const names = new Set(tool.command.params.map((p) => p.name));
  const ownKeys =
    input !== null && typeof input === "object" && !Array.isArray(input)
      ? Object.keys(input).map(pointerToken)
      : [];
  if (issues.length === 0) problems.push("refused without an issue");
  // One object can be wrong in many places; the answer must not grow with the input.
  if (issues.length > 3 * (tool.command.params.length + 2))
    problems.push(`${issues.length} issues for one call`);
  for (const issue of issues) {
    const wording =
      issue.message === "unknown property" ||
      issue.message === "required" ||
      issue.message.startsWith("expected ");
    if (!wording) problems.push(`unexpected wording: ${issue.message.slice(0, 100)}`);
    if (issue.path === "/") continue;
    const [first = "", ...rest] = issue.path.slice(1).split("/");
    if (!names.has(first) && !ownKeys.includes(first))
      problems.push(`path ${issue.path.slice(0, 100)} names no submitted property`);
    if (!rest.every((segment) => /^\d+$/.test(segment)))
      problems.push(`path ${issue.path.slice(0, 100)} is not a property and indices`);
  }
  const serialized = JSON.stringify(issues);
  const keys = submittedKeys(input);
  for (const value of submittedStrings(input)) {
    if (value.length < 4 || !serialized.includes(value)) continue;
    const legitimate = tool.vocabulary.includes(value) || keys.some((k) => k.includes(value));
    if (!legitimate) problems.push(`issues repeat the submitted value ${JSON.stringify(value)}`);
  }
  return problems;
}

function isGiven(param: Param, args: Record<string, unknown>): boolean {
  return paramTokens(param, args[param.name]).length > 0;
}

/** Tokens that start with `-` but were not put there by a param's own option string. */
function injectedOptions(tool: Tool, args: Record<string, unknown>, argv: string[]): string[] {
  const { command } = tool;
  const passthrough = command.params.find((p) => p.shape.kind === "passthrough");
  const tailLength = passthrough ? paramTokens(passthrough, args[passthrough.name]).length : 0;
  const body = argv.slice(command.path.length, argv.length - tailLength);
  const given = command.params.filter((p) => p.option !== null && isGiven(p, args));
  const owned = (token: string) =>
    given.some(
      (p) =>
        token === p.option ||
        (p.shape.kind === "toggle" && token === p.shape.negativeOption) ||
        token.startsWith(`${p.option}=`),
    );
  let separators = 0;
  return body.filter((token) => {
    if (!token.startsWith("-")) return false;
    if (token === "--") return ++separators > 1;
    // A negative number is a value to argparse when no option looks like one (the round trip
    // below proves the target took it as such).
    if (/^-\d/.test(token) && Number.isFinite(Number(token))) return false;
    return !owned(token);
  });
}

/** The smallest valid arguments: only what the command requires. */
function minimalArgs(command: CatalogCommand, seed: number): Record<string, unknown> {
  const sample = fc.sample(argsArb(command), { numRuns: 1, seed })[0] ?? {};
  const required = (p: Param) =>
    p.required ||
    (p.exclusiveGroup !== null && command.exclusiveGroups[p.exclusiveGroup]?.required === true);
  return Object.fromEntries(
    command.params
      .filter((p) => p.name in sample && required(p))
      .map((p) => [p.name, sample[p.name]]),
  );
}

describe("hostile tool arguments, straight into validateArgs and buildArgv", () => {
  test("every generated tool refuses by path without echoing, or builds argv its own argparse parses back exactly", async () => {
    expect(tools.length).toBeGreaterThan(25);
    const prototypesBefore = snapshotPrototypes();
    const accepted: Accepted[] = [];
    let refused = 0;
    for (const [index, tool] of tools.entries()) {
      fc.assert(
        fc.property(hostileArgsArb(tool.command, tool.optionStrings), (input) => {
          const before = JSON.stringify(input);
          const result = validateArgs(tool.command, tool.schema, input);
          expect(JSON.stringify(input)).toBe(before as string);
          if (!result.success) {
            refused++;
            expect(issueProblems(tool, input, result.issues)).toEqual([]);
            return;
          }
          const names = tool.command.params.map((p) => p.name);
          expect(Object.keys(result.output).filter((k) => !names.includes(k))).toEqual([]);
          expect(Object.getPrototypeOf(result.output)).toBe(Object.prototype);
          const argv = buildArgv(tool.command, result.output);
          expect(argv.slice(0, tool.command.path.length)).toEqual(tool.command.path);
          expect(injectedOptions(tool, result.output, argv)).toEqual([]);
          accepted.push({ tool, input, args: result.output, argv });
        }),
        { numRuns: RUNS_PER_TOOL, seed: SEED + index, reporter: compactReport },
      );
    }
    expect(snapshotPrototypes()).toEqual(prototypesBefore);
    // Both outcomes must be exercised in bulk, or the fuzzer tests nothing.
    expect(refused).toBeGreaterThan(tools.length * RUNS_PER_TOOL * 0.2);
    expect(accepted.length).toBeGreaterThan(tools.length * RUNS_PER_TOOL * 0.2);

    // What the target makes of an argv is compared with a baseline parse of the command's
    // smallest valid call: a dest nobody set must keep its baseline value.
    const baselines = tools.map((tool, i) => {
      const args = minimalArgs(tool.command, SEED + i);
      return { args, argv: buildArgv(tool.command, args) };
    });
    const outcomes = await parseWithTarget(
      fixture.python,
      [...baselines.map((b) => b.argv), ...accepted.map((a) => a.argv)],
      fixture.env,
      240_000,
    );
    const failures: string[] = [];
    for (const [i, baseline] of baselines.entries()) {
      if (!outcomes[i]?.ok) failures.push(`baseline ${JSON.stringify(baseline.argv)} refused`);
    }
    let domainRefusals = 0;
    for (const [i, { tool, args, argv }] of accepted.entries()) {
      const outcome = outcomes[tools.length + i];
      // Hostile values conda checks itself (specs, names) are its to refuse.
      if (isDomainRefusal(outcome)) {
        domainRefusals++;
        continue;
      }
      const mismatches = findParseMismatches(tree.tree, tool.command, args, argv, outcome);
      failures.push(...mismatches);
      const toolIndex = tools.indexOf(tool);
      const baseline = outcomes[toolIndex];
      const baselineArgs = baselines[toolIndex]?.args ?? {};
      if (mismatches.length > 0 || !outcome?.ok || !baseline?.ok) continue;
      const touched = new Set<string>();
      for (const param of tool.command.params) {
        if (!(param.name in args) && !(param.name in baselineArgs)) continue;
        touched.add(
          param.shape.kind === "passthrough" && param.shape.greedy ? "_args" : param.dest,
        );
      }
      const dests = new Set([
        ...Object.keys(outcome.namespace),
        ...Object.keys(baseline.namespace),
      ]);
      for (const dest of dests) {
        if (touched.has(dest)) continue;
        if (!Bun.deepEquals(outcome.namespace[dest], baseline.namespace[dest])) {
          failures.push(
            `${tool.command.toolName}: argv ${JSON.stringify(argv)} set ${dest} to ${JSON.stringify(outcome.namespace[dest])} though no param names it`,
          );
        }
      }
    }
    expect(failures.slice(0, 10)).toEqual([]);
    // Most accepted argvs must reach the value comparison, or it proves little.
    expect(domainRefusals).toBeLessThan(accepted.length / 2);
  }, 300_000);
});

describe("hostile conda_execute input, straight into its validator", () => {
  test("is refused by path without echoing, or accepted exactly as sent", () => {
    const limits = { maxStdinBytes: 4096, timeoutSeconds: 30 };
    const value = hostileValueArb(GLOBAL_OPTIONS);
    const text = hostileStringArb(GLOBAL_OPTIONS);
    const optional = (name: string, arb: fc.Arbitrary<unknown>) =>
      fc.option(
        arb.map((v): [string, unknown] => [name, v]),
        { nil: undefined, freq: 2 },
      );
    const input = fc
      .tuple(
        // argv is required: mostly a list of hostile strings, sometimes anything at all.
        fc.oneof(
          { weight: 6, arbitrary: fc.array(text, { maxLength: 6 }) },
          { weight: 1, arbitrary: value },
        ),
        optional("cwd", fc.oneof(text, value)),
        optional("stdin", fc.oneof(text, value)),
        optional(
          "timeout_seconds",
          fc.oneof(fc.double(), fc.constantFrom(0, -1, 30, 31, 0.001), value),
        ),
        optional("__extra__", fc.tuple(fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), text), value)),
      )
      .map(([argv, ...rest]) => {
        const pairs = rest.flatMap((e) => (e === undefined ? [] : [e]));
        const extra = pairs.find(([k]) => k === "__extra__")?.[1] as [string, unknown] | undefined;
        const fields = pairs.filter(([k]) => k !== "__extra__");
        // fromEntries makes `__proto__` an own property, as JSON.parse does.
        return throughJson(
          Object.fromEntries([["argv", argv], ...fields, ...(extra ? [extra] : [])]),
        );
      });
    const prototypesBefore = snapshotPrototypes();
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(
        fc.oneof({ weight: 9, arbitrary: input }, { weight: 1, arbitrary: value.map(throughJson) }),
        (raw) => {
          const result = validateExecuteInput(raw, limits);
          if (result.success) {
            accepted++;
            const sent = raw as Record<string, unknown>;
            expect(result.output.argv).toEqual(sent.argv as string[]);
            expect(Object.keys(result.output).every((k) => k in sent)).toBe(true);
            return;
          }
          refused++;
          expect(result.issues.length).toBeGreaterThan(0);
          expect(result.issues.length).toBeLessThanOrEqual(12);
          const serialized = JSON.stringify(result.issues);
          const keys = submittedKeys(raw);
          for (const s of submittedStrings(raw)) {
            if (s.length >= 4 && serialized.includes(s) && !keys.some((k) => k.includes(s)))
              throw new Error(
                `refusal repeats the submitted value ${JSON.stringify(s).slice(0, 80)}`,
              );
          }
        },
      ),
      { numRuns: RUNS_PER_TOOL * 4, seed: SEED, reporter: compactReport },
    );
    expect(snapshotPrototypes()).toEqual(prototypesBefore);
    expect(accepted).toBeGreaterThan(RUNS_PER_TOOL / 4);
    expect(refused).toBeGreaterThan(RUNS_PER_TOOL / 4);
  }, 60_000);
});

describe("refusals stay small whatever the input's size", () => {
  test("a million wrong items in one array give one issue, not a million", () => {
    const tool = tools.find((t) => t.command.path.join(" ") === "install");
    if (!tool) throw new Error("no install tool");
    for (const items of [0, null, "-x", [[]]]) {
      const result = validateArgs(tool.command, tool.schema, {
        channel: Array.from({ length: 1_000_000 }, () => items),
        packages: Array.from({ length: 1_000_000 }, () => items),
      });
      expect(result.success).toBe(false);
      if (!result.success) expect(result.issues.length).toBeLessThanOrEqual(4);
    }
  }, 60_000);

  test("conda_execute's argv of a million wrong items gives one issue", () => {
    const result = validateExecuteInput(
      { argv: Array.from({ length: 1_000_000 }, () => 0) },
      { maxStdinBytes: 1024, timeoutSeconds: 10 },
    );
    expect(result.success).toBe(false);
    if (!result.success) expect(result.issues.length).toBeLessThanOrEqual(2);
  }, 60_000);
});
