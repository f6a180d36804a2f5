import { isJsonObject } from "../values.ts";
import { plainInitialize, plainToolsList, type RequestId } from "./handshake-shapes.ts";

/** The server's own answers to one plain handshake, as JSON text. */
export interface RecordedHandshake {
  protocolVersion: string;
  initializeResult: string;
  toolsListResult: string;
}

/** Watches a transport's traffic (see TransportObserver). */
export interface HandshakeRecorder {
  received(message: unknown): void;
  sent(message: unknown): void;
}

/** What the start-up answerer answered itself: `initialize`, and `tools/list` if it got that far. */
export type AnsweredEarly = Omit<RecordedHandshake, "toolsListResult"> & {
  toolsListResult: string | null;
};

/**
 * Records what the server answers to the first plain `initialize` and `tools/list` requests
 * (the forms answerHandshake answers), after what the start-up answerer answered itself
 * (`early`), and calls `onRecorded` once, when both answers are known.
 */
export function recordHandshake(
  onRecorded: (handshake: RecordedHandshake) => void,
  early: AnsweredEarly | null = null,
): HandshakeRecorder {
  let protocolVersion = early?.protocolVersion ?? null;
  let initializeId: RequestId | null = null;
  let initializeResult = early?.initializeResult ?? null;
  let listId: RequestId | null = null;
  let toolsListResult = early?.toolsListResult ?? null;
  let recorded = false;
  const settle = () => {
    if (recorded || protocolVersion === null || initializeResult === null) return;
    if (toolsListResult === null) return;
    recorded = true;
    onRecorded({ protocolVersion, initializeResult, toolsListResult });
  };
  settle();
  return {
    received(message) {
      if (recorded) return;
      if (protocolVersion === null) {
        const initialize = plainInitialize(message);
        if (initialize) ({ protocolVersion, id: initializeId } = initialize);
      } else if (listId === null) {
        listId = plainToolsList(message);
      }
    },
    sent(message) {
      if (recorded || !isJsonObject(message) || !isJsonObject(message.result)) return;
      if (initializeResult === null && initializeId !== null && message.id === initializeId) {
        initializeResult = JSON.stringify(message.result);
      } else if (toolsListResult === null && listId !== null && message.id === listId) {
        toolsListResult = JSON.stringify(message.result);
      }
      settle();
    },
  };
}
