import * as v from "valibot";
import { CondaMcpError } from "../errors.ts";
import {
  describeFirstIssue,
  expandParser,
  INDEXES_WITHIN_ACTIONS,
  type IndexedParser,
  type IntrospectionDocument,
  type IntrospectionFacts,
  indexesWithin,
  introspectionFailureSchema,
  introspectionLineSchemas,
  type PluginFacts,
  type RawAction,
  type RawParser,
} from "../introspection-payload.ts";
import { parseJsonOutput } from "../result/execution-result.ts";
import { isJsonObject } from "../values.ts";
import { MAX_DOCUMENT_BYTES, type SpawnedIntrospection } from "./start-introspection.ts";

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

/**
 * What introspect.py's lines have come to: its document, its failure (a CondaMcpError, or what
 * onCommand threw), or nothing yet.
 */
export type DocumentOutcome =
  | { kind: "document"; document: IntrospectionDocument }
  | { kind: "failed"; error: unknown }
  | { kind: "pending" };

/** Reads introspect.py's stdout a chunk at a time. */
export interface DocumentReader {
  push(chunk: Uint8Array): void;
  outcome(): DocumentOutcome;
  /** Resolves once the document is complete or has failed, without waiting for stdout's end. */
  decided: Promise<void>;
}

/** Options of {@link createDocumentReader}. */
export interface DocumentReaderOptions {
  /** Bytes read at most; past them the outcome stays pending. */
  maxBytes: number;
  /** Called with the site folders of the first line, printed before the script imports conda. */
  onSiteDirs?: (siteDirs: string[]) => void;
  /**
   * Called with each of the root parser's subcommands, its actions in place, as soon as its line
   * is checked (the document may still fail later), with the installation's facts.
   */
  onCommand?: (command: RawParser, facts: IntrospectionFacts) => void;
}

/**
 * Puts introspect.py's document together from its lines (see introspectionLineSchemas) as they
 * come, checking each against its schema at once: while Python describes the next command, the
 * server checks the last. A failure line the script printed becomes CondaMcpError
 * UNSUPPORTED_CONDA or INTROSPECTION_FAILED, as does a line its schema refuses, with a readable
 * message.
 */
export function createDocumentReader(options: DocumentReaderOptions): DocumentReader {
  const decoder = new TextDecoder();
  const decided = Promise.withResolvers<void>();
  let outcome: DocumentOutcome = { kind: "pending" };
  // The pieces of the line not yet ended, joined once its end comes.
  const partial: string[] = [];
  let bytes = 0;
  let first = true;
  let facts: IntrospectionFacts | null = null;
  let plugins: PluginFacts | null = null;
  const actions: RawAction[] = [];
  const commands: IndexedParser[] = [];

  const decide = (decision: Exclude<DocumentOutcome, { kind: "pending" }>) => {
    outcome = decision;
    decided.resolve();
  };
  const malformed = (reason: string) =>
    decide({
      kind: "failed",
      error: new CondaMcpError(
        `The introspection document is malformed: ${reason}.`,
        "INTROSPECTION_FAILED",
      ),
    });
  const check = <S extends v.GenericSchema>(schema: S, line: unknown): v.InferOutput<S> | null => {
    const result = v.safeParse(schema, line);
    if (result.success) return result.output;
    malformed(describeFirstIssue(result.issues));
    return null;
  };
  // Each table entry a line adds, in order; its parsers may name only the entries so far.
  const addActions = (added: RawAction[], parser: IndexedParser) => {
    actions.push(...added);
    if (indexesWithin(parser, actions.length)) return true;
    malformed(INDEXES_WITHIN_ACTIONS);
    return false;
  };

  const take = (text: string) => {
    const line = parseJsonOutput(text, false);
    const isFirst = first;
    first = false;
    if (!isJsonObject(line)) return malformed("a line is not a JSON object");
    if (line.ok === false) {
      const { code, message } = v.parse(introspectionFailureSchema, line).error;
      return decide({
        kind: "failed",
        error: new CondaMcpError(
          `Could not read conda's commands: ${summarizeMessage(message)}`,
          code === "UNSUPPORTED_CONDA" ? "UNSUPPORTED_CONDA" : "INTROSPECTION_FAILED",
        ),
      });
    }
    if ("ok" in line) {
      if (facts !== null) return malformed("the installation's facts came twice");
      facts = check(introspectionLineSchemas.facts, line);
      return;
    }
    if ("external_plugins" in line) {
      if (facts === null) return malformed("the installation's facts did not come first");
      if (plugins !== null) return malformed("the plugins' facts came twice");
      plugins = check(introspectionLineSchemas.plugins, line);
      return;
    }
    if ("command" in line) {
      const part = check(introspectionLineSchemas.command, line);
      if (!part || !addActions(part.actions, part.command)) return;
      if (facts === null) return malformed("the installation's facts did not come first");
      commands.push(part.command);
      options.onCommand?.(expandParser(part.command, actions), facts);
      return;
    }
    if ("tree" in line) {
      const end = check(introspectionLineSchemas.end, line);
      if (!end || !addActions(end.actions, end.tree)) return;
      if (facts === null) return malformed("the installation's facts did not come first");
      if (plugins === null) return malformed("the plugins' facts did not come before the root");
      for (const command of end.tree.subcommands) {
        options.onCommand?.(expandParser(command, actions), facts);
      }
      const tree = { ...end.tree, subcommands: [...commands, ...end.tree.subcommands] };
      return decide({ kind: "document", document: { ...facts, ...plugins, actions, tree } });
    }
    if (isFirst && isStringList(line.site_dirs)) return options.onSiteDirs?.(line.site_dirs);
    malformed("a line is none of the document's");
  };

  return {
    push(chunk) {
      if (outcome.kind !== "pending") return;
      bytes += chunk.byteLength;
      if (bytes > options.maxBytes) return;
      const text = decoder.decode(chunk, { stream: true });
      let start = 0;
      for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
        partial.push(text.slice(start, end));
        start = end + 1;
        const line = partial.join("");
        partial.length = 0;
        // A throw here would end the read of stdout as a broken pipe does: Python, blocked on a
        // full pipe, would then run into the deadline, and the error would be lost.
        try {
          take(line);
        } catch (error) {
          decide({ kind: "failed", error });
        }
        if (outcome.kind !== "pending") return;
      }
      partial.push(text.slice(start));
    },
    outcome: () => outcome,
    decided: decided.promise,
  };
}

const SUMMARY_LENGTH = 200;

/** A message as one line of at most 200 characters, for an error that quotes conda's Python. */
export function summarizeMessage(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > SUMMARY_LENGTH ? `${flat.slice(0, SUMMARY_LENGTH - 1)}…` : flat;
}

/** True for an array whose every item is a string. */
export function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}
