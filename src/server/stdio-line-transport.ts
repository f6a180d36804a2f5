import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { checkClientMessage, type ErrorReply, errorReply } from "./check-client-message.ts";

/** Longest accepted message line (the SDK's stdio transport uses the same bound). */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/**
 * MCP over newline-delimited JSON on a byte stream pair. Unlike the SDK's stdio transport,
 * which drops what it cannot parse without a reply and closes itself when a line exceeds its
 * buffer, every undispatchable line gets its JSON-RPC error (parse error, invalid request,
 * invalid params) and an oversized line is skipped, so a bad client line never ends the server.
 */
export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #input: Readable;
  readonly #output: Writable;
  readonly #maxLineBytes: number;
  #parts: Buffer[] = [];
  #size = 0;
  #oversized = false;
  #closed = false;

  constructor(input: Readable, output: Writable, maxLineBytes = MAX_LINE_BYTES) {
    this.#input = input;
    this.#output = output;
    this.#maxLineBytes = maxLineBytes;
  }

  async start(): Promise<void> {
    this.#input.on("data", this.#onData);
    this.#input.on("error", this.#onError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.#write(message);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#input.off("data", this.#onData);
    this.#input.off("error", this.#onError);
    if (this.#input.listenerCount("data") === 0) this.#input.pause();
    this.#parts = [];
    this.onclose?.();
  }

  #onError = (error: Error): void => {
    this.onerror?.(error);
  };

  #onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    let start = 0;
    for (let newline = bytes.indexOf(10); newline !== -1; newline = bytes.indexOf(10, start)) {
      this.#append(bytes.subarray(start, newline));
      this.#endLine();
      start = newline + 1;
    }
    this.#append(bytes.subarray(start));
  };

  #append(part: Buffer): void {
    if (this.#oversized || part.length === 0) return;
    if (this.#size + part.length > this.#maxLineBytes) {
      // Keep reading, but nothing more of this line, until its newline.
      this.#oversized = true;
      this.#parts = [];
      this.#size = 0;
      return;
    }
    this.#parts.push(part);
    this.#size += part.length;
  }

  #endLine(): void {
    if (this.#oversized) {
      this.#oversized = false;
      this.#reply(
        errorReply(
          null,
          ErrorCode.InvalidRequest,
          `Invalid Request: message longer than ${this.#maxLineBytes} bytes`,
        ),
      );
      return;
    }
    const line = Buffer.concat(this.#parts, this.#size).toString("utf8");
    this.#parts = [];
    this.#size = 0;
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.#reply(errorReply(null, ErrorCode.ParseError, "Parse error"));
      return;
    }
    const check = checkClientMessage(value);
    if (check.ok) this.onmessage?.(check.message);
    else if (check.reply) this.#reply(check.reply);
  }

  #reply(reply: ErrorReply): void {
    this.#write(reply).catch((error: unknown) =>
      this.onerror?.(error instanceof Error ? error : new Error(String(error))),
    );
  }

  #write(message: JSONRPCMessage | ErrorReply): Promise<void> {
    return new Promise((resolve) => {
      if (this.#output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.#output.once("drain", resolve);
    });
  }
}
