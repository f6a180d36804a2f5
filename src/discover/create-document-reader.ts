import * as v from "valibot";
import { describeFirstIssue } from "../describe-first-issue.ts";
import { CondaMcpError } from "../errors.ts";
import {
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
import { isJsonObject } from "../is-json-object.ts";
import { isStringList } from "../is-string-list.ts";
import { parseJsonOutput } from "../result/parse-json-output.ts";
import { expandParser } from "./expand-parser.ts";
import { summarizeMessage } from "./summarize-message.ts";

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
