import * as v from "valibot";
import { redactSecrets } from "../catalog/redact-secrets.ts";
import { pythonScriptEnv } from "../execute/launch.ts";
import { runProcess } from "../execute/run-process.ts";
import { type CallFacts, CallFactsSchema } from "./call-facts.ts";
import factsSource from "./find-call-facts.py" with { type: "text" };

/** Where and how the call would run: the fact-finder runs there too. */
export interface FactsRequest {
  /** The target conda's Python. */
  python: string;
  /** The arguments after `conda`, exactly as the call will pass them. */
  argv: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
  /** Credential values of that environment, kept out of the messages conda's code returns. */
  secretValues: readonly string[];
}

export interface FactsOptions {
  platform: NodeJS.Platform;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** The answer, or why conda could not be asked. */
export type FactsAnswer = { ok: true; facts: CallFacts } | { ok: false; why: string };

// The document is small; a plugin that prints megabytes at import is cut off, not kept.
const MAX_OUTPUT_BYTES = 1024 * 1024;

/**
 * Asks the target's Python what conda would do with `argv`: conda's own entry point parses it
 * in the call's working directory and environment and stops before the command runs, then
 * reports the command, the values given and every path the command acts on.
 */
export async function findCallFacts(
  request: FactsRequest,
  options: FactsOptions,
): Promise<FactsAnswer> {
  const run = await runProcess(
    {
      command: request.python,
      argv: ["-B", "-c", factsSource],
      cwd: request.cwd,
      stdin: JSON.stringify(request.argv),
      env: pythonScriptEnv(request.env),
    },
    {
      platform: options.platform,
      timeoutMs: options.timeoutMs,
      maxOutputBytes: MAX_OUTPUT_BYTES,
      signal: options.signal,
    },
  );
  if (run.cancelled) return { ok: false, why: "the call was cancelled" };
  if (run.timed_out) {
    return {
      ok: false,
      why: `conda did not answer within ${Math.round(options.timeoutMs / 1000)} s`,
    };
  }
  // conda's messages may quote a channel URL with its token or a credential from the env.
  const redact = (text: string) => redactSecrets(text, request.secretValues);
  const parsed = v.safeParse(CallFactsSchema, run.parsed_json);
  if (parsed.success) return { ok: true, facts: redactMessages(parsed.output, redact) };
  const last = run.stderr.trim().split("\n").pop()?.slice(0, 300) ?? "";
  return {
    ok: false,
    why: `conda's Python gave no answer (exit code ${run.exit_code})${last ? `: ${redact(last)}` : ""}`,
  };
}

function redactMessages(facts: CallFacts, redact: (text: string) => string): CallFacts {
  switch (facts.outcome) {
    case "unknown":
      return { ...facts, message: redact(facts.message) };
    case "parsed":
      return facts.target_error === null
        ? facts
        : { ...facts, target_error: redact(facts.target_error) };
    default:
      return facts;
  }
}
