import { CondaMcpError } from "../errors.ts";
import { isJsonObject } from "../is-json-object.ts";
import introspectSource from "./introspect.py" with { type: "text" };
import { introspectionShapeProblem } from "./introspection-shape-problem.ts";
import type { IntrospectionFailure, IntrospectionResult } from "./raw-tree.ts";
import { runCaptured } from "./run-captured.ts";

/** Options of {@link introspect}. */
export interface IntrospectOptions {
  /** The environment conda will run with (it decides plugins, condarc, cache paths). */
  env: Readonly<Record<string, string | undefined>>;
  timeoutMs: number;
  platform: NodeJS.Platform;
}

/** The embedded introspection script, as the target's Python receives it on stdin. */
export const INTROSPECT_SOURCE: string = introspectSource;

const SUMMARY_LENGTH = 200;

/**
 * Run the embedded introspection script with the target's Python (`python -B -`, the source
 * on stdin, no shell) and return its validated document. Failures become CondaMcpError
 * INTROSPECTION_FAILED or UNSUPPORTED_CONDA with a readable message, never a traceback.
 */
export async function introspect(
  python: string,
  options: IntrospectOptions,
): Promise<IntrospectionResult> {
  const env: Record<string, string | undefined> = {
    ...options.env,
    PYTHONDONTWRITEBYTECODE: "1",
    PYTHONIOENCODING: "utf-8",
  };
  // Would turn the interpreter interactive after the script; nothing else of the user's
  // Python environment is dropped, so conda sees the plugins it sees when run.
  delete env.PYTHONINSPECT;
  const run = await runCaptured([python, "-B", "-"], {
    env,
    platform: options.platform,
    timeoutMs: options.timeoutMs,
    stdin: INTROSPECT_SOURCE,
  });
  if (run.spawnError !== null) {
    throw new CondaMcpError("Could not start conda's Python interpreter.", "INTROSPECTION_FAILED");
  }
  if (run.timedOut) {
    throw new CondaMcpError(
      `conda's Python did not describe conda's commands within ${Math.round(options.timeoutMs / 1000)} s ` +
        "(raise --introspection-timeout if this conda is slow to start).",
      "INTROSPECTION_FAILED",
    );
  }

  let document: unknown;
  try {
    document = JSON.parse(run.stdout);
  } catch {
    throw new CondaMcpError(
      `conda's Python printed no introspection document (exit code ${run.exitCode})${lastLine(run.stderr)}`,
      "INTROSPECTION_FAILED",
    );
  }
  const failure = asFailure(document);
  if (failure) {
    throw new CondaMcpError(
      `Could not read conda's commands: ${summarize(failure.error.message)}`,
      failure.error.code === "UNSUPPORTED_CONDA" ? "UNSUPPORTED_CONDA" : "INTROSPECTION_FAILED",
    );
  }
  const problem = introspectionShapeProblem(document);
  if (problem) {
    throw new CondaMcpError(
      `The introspection document is malformed: ${problem}.`,
      "INTROSPECTION_FAILED",
    );
  }
  return document as IntrospectionResult;
}

function asFailure(document: unknown): IntrospectionFailure | null {
  if (!isJsonObject(document) || document.ok !== false) return null;
  const error = document.error;
  if (!isJsonObject(error) || typeof error.message !== "string" || typeof error.code !== "string") {
    return {
      ok: false,
      error: { code: "PARSER_FAILED", message: "the script reported a failure without a reason" },
    };
  }
  return document as unknown as IntrospectionFailure;
}

function summarize(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > SUMMARY_LENGTH ? `${flat.slice(0, SUMMARY_LENGTH - 1)}…` : flat;
}

function lastLine(stderr: string): string {
  const line = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .pop();
  return line ? `: ${summarize(line)}` : ".";
}
