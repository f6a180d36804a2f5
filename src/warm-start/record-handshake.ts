import { isJsonObject } from "../is-json-object.ts";
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

/**
 * Records what the server answers to the first plain `initialize` and `tools/list` requests
 * (the forms answerHandshake answers) and calls `onRecorded` once, when both answers are out.
 */
export function recordHandshake(
  onRecorded: (handshake: RecordedHandshake) => void,
): HandshakeRecorder {
  let initialize: { id: RequestId; protocolVersion: string } | null = null;
  let listId: RequestId | null = null;
  let initializeResult: string | null = null;
  let toolsListResult: string | null = null;
  let recorded = false;
  return {
    received(message) {
      if (recorded) return;
      initialize ??= plainInitialize(message);
      if (listId === null && initialize !== null) listId = plainToolsList(message);
    },
    sent(message) {
      if (recorded || !isJsonObject(message) || !isJsonObject(message.result)) return;
      if (initialize && initializeResult === null && message.id === initialize.id) {
        initializeResult = JSON.stringify(message.result);
      } else if (listId !== null && message.id === listId) {
        toolsListResult = JSON.stringify(message.result);
      }
      if (initialize && initializeResult && toolsListResult) {
        recorded = true;
        onRecorded({
          protocolVersion: initialize.protocolVersion,
          initializeResult,
          toolsListResult,
        });
      }
    },
  };
}
