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

/** What a read of the input gives: a chunk, or its end. */
type ReadResult = { done: true; value?: Uint8Array } | { done: false; value: Uint8Array };

/**
 * Splits a byte stream into lines (newline-delimited JSON) and hands them to one consumer at a
 * time. Lines that arrive while nobody takes them wait, in order, for the next consumer, so the
 * start-up answerer can pass the input on to the full server without losing a byte. It reads a
 * web stream (`Bun.stdin.stream()`): process.stdin would load Node's stream modules, which
 * took longer than a warm start's whole answer.
 */
export class LineReader {
  readonly #input: {
    read(): Promise<ReadResult>;
    cancel(): Promise<void>;
  };
  readonly maxLineBytes: number;
  #consumer: LineConsumer | null = null;
  #waiting: InputLine[] = [];
  #ended = false;
  #closed = false;
  #parts: Uint8Array[] = [];
  #size = 0;
  #oversized = false;

  constructor(input: ReadableStream<Uint8Array>, maxLineBytes = MAX_LINE_BYTES) {
    this.#input = input.getReader();
    this.maxLineBytes = maxLineBytes;
    void this.#read();
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
    this.#closed = true;
    this.#consumer = null;
    this.#waiting = [];
    this.#parts = [];
    this.#input.cancel().catch(() => {});
  }

  #deliver(line: InputLine): void {
    if (this.#consumer && this.#waiting.length === 0 && this.#consumer.take(line)) return;
    this.#consumer = null;
    this.#waiting.push(line);
  }

  // Only a failed read is the input's error: a throw from a consumer's take() is a fault of
  // ours, left to crash loudly as an unhandled rejection rather than end the session quietly.
  async #read(): Promise<void> {
    for (;;) {
      let chunk: ReadResult;
      try {
        chunk = await this.#input.read();
      } catch (error) {
        // As a Node stream closes after its error: the consumer hears of both.
        if (!this.#closed)
          this.#consumer?.error(error instanceof Error ? error : new Error(String(error)));
        break;
      }
      if (chunk.done || this.#closed) break;
      this.#onData(chunk.value);
    }
    if (!this.#closed) this.#onEnd();
  }

  #onData(bytes: Uint8Array): void {
    let start = 0;
    for (let newline = bytes.indexOf(10); newline !== -1; newline = bytes.indexOf(10, start)) {
      this.#append(bytes.subarray(start, newline));
      this.#endLine();
      start = newline + 1;
    }
    this.#append(bytes.subarray(start));
  }

  #onEnd(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#consumer && this.#waiting.length === 0) this.#consumer.end();
  }

  #append(part: Uint8Array): void {
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

/** The JSON message a line holds, or null for an oversized line or one that is not JSON. */
export function parseInputLine(line: InputLine): { message: unknown } | null {
  if ("oversized" in line) return null;
  try {
    return { message: JSON.parse(line.text) };
  } catch {
    return null;
  }
}

/**
 * Resolves once a line waits in `reader` (left there for the next consumer), the input ends or
 * `ms` pass, whichever comes first.
 */
export function waitForLine(reader: LineReader, ms: number): Promise<void> {
  // attach() offers a line that already waits at once, which ends the wait there and then.
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(done, ms);
    reader.attach({
      take: () => {
        done();
        return false;
      },
      end: done,
      error: done,
    });
  });
}
