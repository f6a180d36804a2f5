import type { Readable } from "node:stream";

/** Longest accepted message line (the SDK's stdio transport uses the same bound). */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/** One line of input: its text, or the mark of a line longer than the limit (skipped). */
export type InputLine = { text: string } | { oversized: true };

/** Whoever handles the lines for now. */
export interface LineConsumer {
  /** Handles a line, or returns false to leave it, and every later line, for the next consumer. */
  take(line: InputLine): boolean;
  /** The input ended (or closed) and every line before it was taken. */
  end(): void;
  error(error: Error): void;
}

/**
 * Splits a byte stream into lines (newline-delimited JSON) and hands them to one consumer at a
 * time. Lines that arrive while nobody takes them wait, in order, for the next consumer, so the
 * start-up answerer can pass the input on to the full server without losing a byte.
 */
export class LineReader {
  readonly #input: Readable;
  readonly maxLineBytes: number;
  #consumer: LineConsumer | null = null;
  #waiting: InputLine[] = [];
  #ended = false;
  #parts: Buffer[] = [];
  #size = 0;
  #oversized = false;

  constructor(input: Readable, maxLineBytes = MAX_LINE_BYTES) {
    this.#input = input;
    this.maxLineBytes = maxLineBytes;
    input.on("data", this.#onData);
    input.once("end", this.#onEnd);
    input.once("close", this.#onEnd);
    input.on("error", this.#onError);
  }

  /** Makes `consumer` the one that takes lines, starting with those that waited. */
  attach(consumer: LineConsumer): void {
    this.#consumer = consumer;
    while (this.#consumer === consumer && this.#waiting.length > 0) {
      const line = this.#waiting[0] as InputLine;
      if (!consumer.take(line)) {
        this.#consumer = null;
        return;
      }
      this.#waiting.shift();
    }
    // A macrotask later, as a stream's own end event comes after its data: the lines just
    // handed over get their quick answers out before the consumer hears of the end.
    if (this.#consumer === consumer && this.#ended) {
      setImmediate(() => {
        if (this.#consumer === consumer) consumer.end();
      });
    }
  }

  /** The lines read that no consumer has taken yet, in order (a view: do not change it). */
  waiting(): readonly InputLine[] {
    return this.#waiting;
  }

  /** Stops reading for good; lines not yet taken are dropped. */
  close(): void {
    this.#consumer = null;
    this.#waiting = [];
    this.#parts = [];
    this.#input.off("data", this.#onData);
    this.#input.off("end", this.#onEnd);
    this.#input.off("close", this.#onEnd);
    this.#input.off("error", this.#onError);
    if (this.#input.listenerCount("data") === 0) this.#input.pause();
  }

  #deliver(line: InputLine): void {
    if (this.#consumer && this.#waiting.length === 0 && this.#consumer.take(line)) return;
    this.#consumer = null;
    this.#waiting.push(line);
  }

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

  #onEnd = (): void => {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#consumer && this.#waiting.length === 0) this.#consumer.end();
  };

  #onError = (error: Error): void => {
    this.#consumer?.error(error);
  };

  #append(part: Buffer): void {
    if (this.#oversized || part.length === 0) return;
    if (this.#size + part.length > this.maxLineBytes) {
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
      this.#deliver({ oversized: true });
      return;
    }
    const text = Buffer.concat(this.#parts, this.#size).toString("utf8");
    this.#parts = [];
    this.#size = 0;
    if (text.trim() !== "") this.#deliver({ text });
  }
}
