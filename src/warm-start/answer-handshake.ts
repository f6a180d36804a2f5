import type { Writable } from "node:stream";
import type { InputLine, LineReader } from "../stdio/line-reader.ts";
import { isPlainInitialized, plainInitialize, plainToolsList } from "./handshake-shapes.ts";
import type { StartupSnapshot } from "./startup-snapshot.ts";

/** What the full server needs to take over from the start-up answerer. */
export interface Handover {
  /** Messages already handled (answered, or notifications), for the full server to replay. */
  replay: unknown[];
  /** Whether `initialize` was answered from the snapshot; if not, the full server records anew. */
  answeredInitialize: boolean;
  /** The fingerprint the answered tool list was built from. */
  fingerprint: string;
}

/**
 * Answers the MCP handshake from a snapshot while the rest of the program is not even loaded:
 * one `initialize` asking for the snapshot's protocol version and any plain `tools/list`, each
 * with exactly what the server answered when the snapshot was recorded. The first line it does
 * not answer, or the end of the handshake (a tools/list answered), hands the input over to the
 * full server; lines not answered wait in `reader`. Resolves null when stdin ends or `stop`
 * fires first: nothing is left to do.
 */
export function answerFromSnapshot(
  snapshot: StartupSnapshot,
  reader: LineReader,
  output: Writable,
  stop: AbortSignal,
): Promise<Handover | null> {
  return new Promise((resolve) => {
    const replay: unknown[] = [];
    let initialized = false;
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
        answeredInitialize: initialized,
        fingerprint: snapshot.stamp.fingerprint,
      });
    const onStop = () => finish(null);
    const answer = (id: string | number, result: string) => {
      const line = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}\n`;
      writes = writes.then(() => new Promise((written) => output.write(line, () => written())));
    };

    const take = (line: InputLine): boolean => {
      const step = done ? null : snapshotStep(line, snapshot, initialized);
      if (step === null) {
        handOver();
        return false;
      }
      if (step.answer) answer(step.answer.id, step.answer.result);
      if (step.kind === "initialize") initialized = true;
      if (step.kind === "tools/list") {
        // The client has its tools: load the full server now, unless the input ends at once.
        setImmediate(handOver);
      } else {
        replay.push(step.message);
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

/** What the answerer does with one line: answer it from the snapshot, pass it, or (null) hand over. */
function snapshotStep(
  line: InputLine,
  snapshot: StartupSnapshot,
  initialized: boolean,
): {
  kind: "initialize" | "initialized" | "tools/list";
  message: unknown;
  answer: { id: string | number; result: string } | null;
} | null {
  if ("oversized" in line) return null;
  let message: unknown;
  try {
    message = JSON.parse(line.text);
  } catch {
    return null;
  }
  const initialize = initialized ? null : plainInitialize(message);
  if (initialize && initialize.protocolVersion === snapshot.protocolVersion) {
    const answer = { id: initialize.id, result: snapshot.initializeResult };
    return { kind: "initialize", message, answer };
  }
  if (initialized && isPlainInitialized(message))
    return { kind: "initialized", message, answer: null };
  const listId = plainToolsList(message);
  if (listId === null) return null;
  return { kind: "tools/list", message, answer: { id: listId, result: snapshot.toolsListResult } };
}
