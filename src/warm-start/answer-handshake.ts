import { type InputLine, type LineReader, parseInputLine } from "../stdio/line-reader.ts";
import type { LineOutput } from "../stdio/stdout-output.ts";
import { isPlainInitialized, plainInitialize, plainToolsList } from "./handshake-shapes.ts";
import type { AnsweredEarly } from "./record-handshake.ts";

/** The answers to a plain handshake, as JSON text: a startup snapshot's, or this start's own. */
export interface HandshakeAnswers {
  /** The `initialize` result for a requested protocol version, or null: the full server answers. */
  initializeResult(protocolVersion: string): string | null;
  /** The `tools/list` result. */
  toolsListResult(): string;
  /** The fingerprint the tool list was built from. */
  fingerprint: string;
}

/** What the full server needs to take over from the start-up answerer. */
export interface Handover {
  /** Messages already handled (answered, or notifications), for the full server to replay. */
  replay: unknown[];
  /** The fingerprint the answered tool list was built from. */
  fingerprint: string;
  /**
   * The answers given here (for the snapshot recorder); null when `initialize` was not answered
   * here, and the full server answers it.
   */
  answered: AnsweredEarly | null;
}

/**
 * Answers the MCP handshake without the MCP SDK: one `initialize` whose protocol version the
 * answers have a result for and any plain `tools/list`, each with the text `answers` give. The
 * first line it does not answer, or the end of the handshake (a tools/list answered), hands the
 * input over to the full server; lines not answered wait in `reader`. Resolves null when stdin
 * ends or `stop` fires first: nothing is left to do.
 */
export function answerHandshake(
  answers: HandshakeAnswers,
  reader: LineReader,
  output: LineOutput,
  stop: AbortSignal,
): Promise<Handover | null> {
  return new Promise((resolve) => {
    const replay: unknown[] = [];
    let initialize: { protocolVersion: string; result: string } | null = null;
    let toolsListResult: string | null = null;
    let writes: Promise<void> = Promise.resolve();
    let done = false;
    const finish = (handover: Handover | null) => {
      if (done) return;
      done = true;
      stop.removeEventListener("abort", onStop);
      // Answers are out before the process may exit or the full server writes.
      writes.then(() => resolve(handover));
    };
    const handOver = () =>
      finish({
        replay,
        fingerprint: answers.fingerprint,
        answered: initialize && {
          protocolVersion: initialize.protocolVersion,
          initializeResult: initialize.result,
          toolsListResult,
        },
      });
    const onStop = () => finish(null);
    const answer = (id: string | number, result: string) => {
      const line = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}\n`;
      writes = writes.then(() => new Promise((written) => output.write(line, () => written())));
    };

    // A tool list that fails to build is the full server's to answer, with its error.
    const toolsList = (): string | null => {
      try {
        return answers.toolsListResult();
      } catch {
        return null;
      }
    };

    const take = (line: InputLine): boolean => {
      const step = done ? null : handshakeStep(line, answers, initialize !== null);
      if (step === null) {
        handOver();
        return false;
      }
      if (step.kind === "initialize") {
        initialize = { protocolVersion: step.protocolVersion, result: step.result };
        answer(step.id, step.result);
        replay.push(step.message);
        // The tool list is made while the client reads that answer, unless it is gone by then.
        writes.then(() => setImmediate(() => done || toolsList()));
      } else if (step.kind === "initialized") {
        replay.push(step.message);
      } else {
        toolsListResult = toolsList();
        if (toolsListResult === null) {
          handOver();
          return false;
        }
        answer(step.id, toolsListResult);
        // The client has its tools: load the full server now, unless the input ends at once.
        setImmediate(handOver);
      }
      return true;
    };

    if (stop.aborted) return resolve(null);
    stop.addEventListener("abort", onStop, { once: true });
    reader.attach({
      take,
      end: () => finish(null),
      // A read error is for the full server to report.
      error: () => handOver(),
    });
  });
}

type Step =
  | {
      kind: "initialize";
      message: unknown;
      id: string | number;
      protocolVersion: string;
      result: string;
    }
  | { kind: "initialized"; message: unknown }
  | { kind: "tools/list"; id: string | number };

/** What the answerer does with one line: answer it, pass it on, or (null) hand over. */
function handshakeStep(
  line: InputLine,
  answers: HandshakeAnswers,
  initialized: boolean,
): Step | null {
  const parsed = parseInputLine(line);
  if (parsed === null) return null;
  const { message } = parsed;
  const initialize = initialized ? null : plainInitialize(message);
  const result = initialize && answers.initializeResult(initialize.protocolVersion);
  if (initialize && result) {
    const { id, protocolVersion } = initialize;
    return { kind: "initialize", message, id, protocolVersion, result };
  }
  if (initialized && isPlainInitialized(message)) return { kind: "initialized", message };
  const listId = plainToolsList(message);
  return listId === null ? null : { kind: "tools/list", id: listId };
}
