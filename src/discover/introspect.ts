import { CondaMcpError } from "../errors.ts";
import type { IntrospectionDocument } from "../introspection-payload.ts";
import { createDocumentReader, type DocumentReaderOptions } from "./create-document-reader.ts";
import { MAX_DOCUMENT_BYTES, type SpawnedIntrospection } from "./spawn-introspection.ts";
import { summarizeMessage } from "./summarize-message.ts";

/** Options of {@link introspect}. */
export interface IntrospectOptions {
  /** The run's deadline, as spawnIntrospection was given it (for the message that names it). */
  timeoutMs: number;
  /**
   * Called with the site folders Python reports before it imports conda, so the caller can read
   * them meanwhile; the document's own `site_dirs`, listed later, may differ.
   */
  onSiteDirs?: (siteDirs: string[]) => void;
  /** Called with each top-level command as soon as it is read (see createDocumentReader). */
  onCommand?: DocumentReaderOptions["onCommand"];
}

// introspect.py ends the interpreter right after its document: it only has to free its memory.
const EXIT_GRACE_MS = 1000;

/**
 * Reads the document of a spawned introspection (see spawnIntrospection) and returns it
 * validated. Failures become CondaMcpError INTROSPECTION_FAILED or UNSUPPORTED_CONDA with a
 * readable message, never a traceback.
 */
export async function introspect(
  spawned: SpawnedIntrospection,
  options: IntrospectOptions,
): Promise<IntrospectionDocument> {
  const reader = createDocumentReader({
    maxBytes: MAX_DOCUMENT_BYTES,
    onSiteDirs: options.onSiteDirs,
    onCommand: options.onCommand,
  });
  spawned.read(reader.push);
  const { running } = spawned;
  // The document is taken as soon as its last line is checked: Python's exit, which frees the
  // memory conda's modules took, comes some milliseconds later. An interpreter still there after
  // EXIT_GRACE_MS (a wrapper that lingers) is ended as a cancelled run is.
  await Promise.race([reader.decided, running]);
  const outcome = reader.outcome();
  if (outcome.kind !== "pending") {
    setTimeout(() => spawned.abandon(), EXIT_GRACE_MS).unref();
    if (outcome.kind === "failed") throw outcome.error;
    return outcome.document;
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

  throw new CondaMcpError(
    `conda's Python printed no introspection document (exit code ${run.exit_code})${lastLine(run.stderr)}`,
    "INTROSPECTION_FAILED",
  );
}

function lastLine(stderr: string): string {
  const line = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .pop();
  return line ? `: ${summarizeMessage(line)}` : ".";
}
