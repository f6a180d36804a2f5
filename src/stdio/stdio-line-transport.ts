import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import {
  type ClientMessageCheck,
  checkClientMessage,
  type ErrorReply,
  errorReply,
} from "./check-client-message.ts";
import type { InputLine, LineConsumer, LineReader } from "./line-reader.ts";
import type { LineOutput } from "./stdout-output.ts";

/** Sees every message that passes through the transport, in order. */
export interface TransportObserver {
  received(message: JSONRPCMessage): void;
  sent(message: JSONRPCMessage): void;
}

/** Options of {@link StdioLineTransport}. */
export interface StdioLineTransportOptions {
  /**
   * Messages the start-up answerer already handled, delivered to the server first; the answer
   * to each of these requests was sent already and is not sent again.
   */
  replay?: readonly JSONRPCMessage[];
  observer?: TransportObserver;
}

// Lines checked before a transport took them (see checkInputLine).
const checkedLines = new WeakMap<InputLine, ClientMessageCheck>();

/**
 * A line as the transport reads it: the message to dispatch, or the error to answer (none for a
 * bad response). Each line is parsed and checked once: a cold start checks the lines waiting
 * in the reader while conda's Python runs, so the first messages' checks (the SDK's zod schemas
 * run for the first time) are done before the server exists.
 */
export function checkInputLine(line: InputLine, maxLineBytes: number): ClientMessageCheck {
  let check = checkedLines.get(line);
  if (check === undefined) {
    check = "oversized" in line ? oversized(maxLineBytes) : checkLineText(line.text);
    checkedLines.set(line, check);
  }
  return check;
}

function oversized(maxLineBytes: number): ClientMessageCheck {
  const message = `Invalid Request: message longer than ${maxLineBytes} bytes`;
  return { ok: false, reply: errorReply(null, ErrorCode.InvalidRequest, message) };
}

function checkLineText(text: string): ClientMessageCheck {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reply: errorReply(null, ErrorCode.ParseError, "Parse error") };
  }
  return checkClientMessage(value);
}

/**
 * MCP over newline-delimited JSON on a byte stream pair. Unlike the SDK's stdio transport,
 * which drops what it cannot parse without a reply and closes itself when a line exceeds its
 * buffer, every undispatchable line gets its JSON-RPC error (parse error, invalid request,
 * invalid params) and an oversized line is skipped, so a bad client line never ends the server.
 * The end of the input closes the transport.
 */
export class StdioLineTransport implements Transport, LineConsumer {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #reader: LineReader;
  readonly #output: LineOutput;
  readonly #replay: readonly JSONRPCMessage[];
  readonly #observer: TransportObserver | null;
  // Requests replayed from the start-up answerer: their answers are swallowed once.
  readonly #answered = new Map<string | number, () => void>();
  #closed = false;
  readonly #pending = new Set<Promise<void>>();

  constructor(reader: LineReader, output: LineOutput, options: StdioLineTransportOptions = {}) {
    this.#reader = reader;
    this.#output = output;
    this.#replay = options.replay ?? [];
    this.#observer = options.observer ?? null;
  }

  async start(): Promise<void> {
    for (const message of this.#replay) {
      if ("id" in message && "method" in message) {
        const answered = new Promise<void>((resolve) => this.#answered.set(message.id, resolve));
        this.onmessage?.(message);
        // Later lines may reuse the id: they wait until the replayed answer is swallowed.
        await answered;
      } else {
        this.onmessage?.(message);
      }
    }
    this.#reader.attach(this);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (("result" in message || "error" in message) && message.id !== undefined) {
      const swallow = this.#answered.get(message.id);
      if (swallow) {
        this.#answered.delete(message.id);
        swallow();
        return;
      }
    }
    this.#observer?.sent(message);
    await this.#write(message);
  }

  /** Stops reading and, already closed or not, resolves once every answer is written out. */
  async close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#reader.close();
      this.onclose?.();
    }
    await Promise.all(this.#pending);
  }

  take(line: InputLine): boolean {
    const check = checkInputLine(line, this.#reader.maxLineBytes);
    if (check.ok) {
      this.#observer?.received(check.message);
      this.onmessage?.(check.message);
    } else if (check.reply) {
      this.#reply(check.reply);
    }
    return true;
  }

  end(): void {
    this.close().catch(() => {});
  }

  error(error: Error): void {
    this.onerror?.(error);
  }

  #reply(reply: ErrorReply): void {
    this.#write(reply).catch((error: unknown) =>
      this.onerror?.(error instanceof Error ? error : new Error(String(error))),
    );
  }

  // Resolves from the write's own callback, once the line is handed to the OS: Bun's
  // process.exit does not wait for a pipe, and a large answer may still be queued.
  #write(message: JSONRPCMessage | ErrorReply): Promise<void> {
    const written = new Promise<void>((resolve) => {
      this.#output.write(`${JSON.stringify(message)}\n`, () => resolve());
    });
    this.#pending.add(written);
    written.then(() => this.#pending.delete(written));
    return written;
  }
}
