import { CondaMcpError } from "../errors.ts";
import { pythonScriptEnv } from "../execute/python-script-env.ts";
import type { CappedText } from "../execute/read-capped.ts";
import { runProcess } from "../execute/run-process.ts";
import type { IntrospectionDocument } from "../introspection-payload.ts";
import { isJsonObject } from "../is-json-object.ts";
import { isStringList } from "../is-string-list.ts";
import { parseJsonOutput } from "../result/parse-json-output.ts";
import { checkDocument } from "./check-document.ts";
import { INTROSPECT_SOURCE } from "./introspect-source.ts";
import { summarizeMessage } from "./summarize-message.ts";

/** Options of {@link introspect}. */
export interface IntrospectOptions {
  /** The environment conda will run with (it decides plugins, condarc, cache paths). */
  env: Readonly<Record<string, string | undefined>>;
  timeoutMs: number;
  platform: NodeJS.Platform;
  /** Called once the target's Python is running, so the caller can do other work meanwhile. */
  onStarted?: () => void;
  /**
   * Called with the site folders Python reports before it imports conda, so the caller can read
   * them meanwhile; the document's own `site_dirs`, listed last, may differ.
   */
  onSiteDirs?: (siteDirs: string[]) => void;
}

// The largest tree dump seen is ~2 MB; a document cut at the cap would fail to parse.
const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;
const MAX_HEAD_CHARS = 1024 * 1024;
// introspect.py ends the interpreter right after its document: it only has to free its memory.
const EXIT_GRACE_MS = 1000;

/**
 * Run the embedded introspection script with the target's Python (`python -B -`, the source
 * on stdin, no shell) and return its validated document. Failures become CondaMcpError
 * INTROSPECTION_FAILED or UNSUPPORTED_CONDA with a readable message, never a traceback.
 */
export async function introspect(
  python: string,
  options: IntrospectOptions,
): Promise<IntrospectionDocument> {
  const stdoutEnded = Promise.withResolvers<CappedText>();
  const abandon = new AbortController();
  const running = runProcess(
    {
      command: python,
      argv: ["-B", "-"],
      stdin: INTROSPECT_SOURCE,
      env: pythonScriptEnv(options.env),
    },
    {
      platform: options.platform,
      timeoutMs: options.timeoutMs,
      maxOutputBytes: MAX_DOCUMENT_BYTES,
      onStdout: options.onSiteDirs && firstLineReader(options.onSiteDirs),
      onStdoutEnd: stdoutEnded.resolve,
      signal: abandon.signal,
    },
  );
  // runProcess spawns before its first await.
  options.onStarted?.();
  // A complete document is taken as soon as stdout ends: Python's exit, which frees the memory
  // conda's modules took, comes some milliseconds later. An interpreter still there after
  // EXIT_GRACE_MS (a wrapper that lingers) is ended as a cancelled run is.
  const ended = await Promise.race([stdoutEnded.promise, running.then(() => null)]);
  const early = ended === null ? null : documentOf(ended.text, ended.truncated);
  if (early !== null) {
    setTimeout(() => abandon.abort(), EXIT_GRACE_MS).unref();
    return checkDocument(early);
  }
  const run = await running;
  if (run.stop_reason === "not_started") {
    throw new CondaMcpError("Could not start conda's Python interpreter.", "INTROSPECTION_FAILED");
  }
  if (run.timed_out) {
    throw new CondaMcpError(
      `conda's Python did not describe conda's commands within ${Math.round(options.timeoutMs / 1000)} s ` +
        "(raise --introspection-timeout if this conda is slow to start).",
      "INTROSPECTION_FAILED",
    );
  }

  const document = documentOf(run.stdout, run.stdout_truncated);
  if (document === null) {
    throw new CondaMcpError(
      `conda's Python printed no introspection document (exit code ${run.exit_code})${lastLine(run.stderr)}`,
      "INTROSPECTION_FAILED",
    );
  }
  return checkDocument(document);
}

/** Passes on the site folders of stdout's first line, once it is complete. */
function firstLineReader(onSiteDirs: (siteDirs: string[]) => void) {
  const decoder = new TextDecoder();
  let head: string | null = "";
  return (chunk: Uint8Array) => {
    if (head === null) return;
    head += decoder.decode(chunk, { stream: true });
    const end = head.indexOf("\n");
    if (end === -1) {
      // The site folders' line is short: a longer one is some other output, not read twice.
      if (head.length > MAX_HEAD_CHARS) head = null;
      return;
    }
    const line = head.slice(0, end);
    head = null;
    const parsed = parseJsonOutput(line, false);
    if (isJsonObject(parsed) && isStringList(parsed.site_dirs)) onSiteDirs(parsed.site_dirs);
  };
}

/** The document stdout holds after the site folders' line (which has no `ok`), or null. */
function documentOf(stdout: string, truncated: boolean): unknown {
  const end = stdout.indexOf("\n");
  const head = end === -1 ? null : parseJsonOutput(stdout.slice(0, end), false);
  const rest = isJsonObject(head) && !("ok" in head) ? stdout.slice(end + 1) : stdout;
  return parseJsonOutput(rest, truncated);
}

function lastLine(stderr: string): string {
  const line = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .pop();
  return line ? `: ${summarizeMessage(line)}` : ".";
}
