#!/usr/bin/env bun
// The safety check's cost: conda-mcp's fact-finder (conda's own parse of the argv, its context,
// and the facts about every path the command acts on) against a bare parse of the same argv by
// conda's parser in the same Python, interleaved run by run.
// Usage: bun scripts/bench-safety-check.ts [--runs N] [--conda PATH]
import { credentialValues } from "../src/catalog/redact-secrets.ts";
import { findCallFacts } from "../src/policy/find-call-facts.ts";
import {
  benchConda,
  machineLine,
  markdownTable,
  ms,
  ratio,
  sampleInterleaved,
  signedMs,
  timeRun,
} from "./bench-support.ts";

const argv = process.argv.slice(2);
const runsAt = argv.indexOf("--runs");
const RUNS = runsAt >= 0 ? Number(argv[runsAt + 1]) : 30;

// What conda's entry point does up to its post-parse hook, and nothing after; it ends as the
// fact-finder does (exit handlers, then os._exit without the interpreter's teardown), so the
// two differ only by the facts.
const BARE_PARSE = `
import atexit, json, os, sys
from conda.cli.main import main_subshell
class Parsed(BaseException): pass
def stop(args, parser): raise Parsed()
try:
    main_subshell(*json.loads(sys.argv[1]), post_parse_hook=stop)
except Parsed:
    pass
atexit._run_exitfuncs()
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)
`;

const target = await benchConda(argv);
try {
  const cases: [string, string[]][] = [
    ["`install -n demo tinyhello`", ["install", "-n", "demo", "tinyhello"]],
    ["`remove --all -n base` (walks the base prefix)", ["remove", "--all", "-n", "base"]],
  ];
  const samplers: Record<string, () => Promise<number>> = {};
  for (const [label, call] of cases) {
    samplers[`facts ${label}`] = async () => {
      const started = performance.now();
      const answer = await findCallFacts(
        {
          python: target.python,
          argv: call,
          cwd: process.cwd(),
          env: target.env,
          secretValues: credentialValues(target.env),
        },
        { platform: process.platform, timeoutMs: 60_000 },
      );
      if (!answer.ok || answer.facts.outcome !== "parsed") throw new Error(`no facts for ${label}`);
      return performance.now() - started;
    };
    samplers[`bare ${label}`] = async () => {
      const run = await timeRun(
        [target.python, "-B", "-c", BARE_PARSE, JSON.stringify(call)],
        target.env,
      );
      if (run.exitCode !== 0) throw new Error(`bare parse of ${label} failed`);
      return run.ms;
    };
  }
  process.stderr.write(`3 warm-up + ${RUNS} runs of each, interleaved ...\n`);
  const stats = await sampleInterleaved(samplers, { warmup: 3, runs: RUNS });
  const pairs = cases.map(([label]) => {
    const facts = stats[`facts ${label}`];
    const bare = stats[`bare ${label}`];
    if (!facts || !bare) throw new Error("missing figures");
    return { label, facts, bare };
  });
  const rows = pairs.map(({ label, facts, bare }) => [
    label,
    ms(facts.p50),
    ms(bare.p50),
    ratio(facts.p50, bare.p50),
    signedMs(facts.p50 - bare.p50),
  ]);
  console.log(`Measured ${machineLine()}; ${target.label}.`);
  console.log(`Command: \`bun scripts/bench-safety-check.ts --runs ${RUNS}\`\n`);
  console.log(
    markdownTable(
      ["argv", "safety check p50 (ms)", "floor: bare parse p50 (ms)", "ratio", "difference"],
      rows,
    ),
  );
  const worst = Math.max(...pairs.map(({ facts, bare }) => facts.p50 / bare.p50));
  console.log(
    `\nGoal: the safety check ≤ ×1.2 of a bare parse: ${worst <= 1.2 ? "met" : "NOT met"} ` +
      `(at worst ×${worst.toFixed(2)}).`,
  );
} finally {
  await target.cleanup();
}
