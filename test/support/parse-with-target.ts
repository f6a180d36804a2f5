import { join } from "node:path";
import { pythonScriptEnv } from "../../src/execute/launch.ts";
import { runProgram } from "./run-program.ts";

/** How the target's parser took one argv (see parse-with-target.py for the value encoding). */
export type ParseOutcome =
  | { ok: true; namespace: Record<string, unknown> }
  | { ok: false; exit_code: number; stderr: string; stdout: string };

const SCRIPT = join(import.meta.dir, "parse-with-target.py");
const INTROSPECT = join(import.meta.dir, "..", "..", "src", "discover", "introspect.py");

/**
 * Parse many argvs (without the leading `conda`) with the target conda's own parser in one
 * Python process; the parser is built exactly as the introspection builds it.
 */
export async function parseWithTarget(
  python: string,
  argvs: string[][],
  env: Record<string, string | undefined>,
  timeoutMs = 30_000,
): Promise<ParseOutcome[]> {
  const run = await runProgram([python, "-B", SCRIPT, INTROSPECT], {
    env: pythonScriptEnv(env),
    timeoutMs,
    stdin: JSON.stringify(argvs),
  });
  if (run.timedOut) throw new Error(`parse-with-target timed out after ${timeoutMs} ms`);
  if (run.exitCode !== 0) {
    throw new Error(`parse-with-target failed (exit ${run.exitCode}): ${run.stderr.trim()}`);
  }
  const outcomes = JSON.parse(run.stdout) as ParseOutcome[];
  if (outcomes.length !== argvs.length) throw new Error("parse-with-target lost argvs");
  return outcomes;
}
