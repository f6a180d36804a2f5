import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
  type InputLine,
  type LineConsumer,
  LineReader,
  waitForLine,
} from "../../src/stdio/line-reader.ts";
import { byteInput } from "../support/byte-input.ts";
import { runProgram } from "../support/run-program.ts";

/** A consumer that takes lines until `refuseFrom` says no, recording what it saw. */
function recorder(refuseFrom: (line: InputLine) => boolean = () => false) {
  const taken: InputLine[] = [];
  let ended = 0;
  const consumer: LineConsumer = {
    take: (line) => {
      if (refuseFrom(line)) return false;
      taken.push(line);
      return true;
    },
    end: () => {
      ended++;
    },
    error: () => {},
  };
  return { consumer, taken, ended: () => ended };
}

const text = (line: InputLine) => ("text" in line ? line.text : "<oversized>");
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("LineReader", () => {
  test("lines split across chunks arrive whole; blank lines are skipped", async () => {
    const input = byteInput();
    const reader = new LineReader(input.stream);
    const first = recorder();
    reader.attach(first.consumer);
    input.write('{"a":');
    input.write('1}\n\n  \n{"b"');
    input.write(":2}\n");
    await tick();
    expect(first.taken.map(text)).toEqual(['{"a":1}', '{"b":2}']);
  });

  test("a refused line and every later one wait, in order, for the next consumer", async () => {
    const input = byteInput();
    const reader = new LineReader(input.stream);
    const early = recorder((line) => text(line) === "hand over");
    reader.attach(early.consumer);
    input.write("one\nhand over\nthree\n");
    await tick();
    input.write("four\n");
    input.end();
    await tick();
    expect(early.taken.map(text)).toEqual(["one"]);
    // The refusing consumer hears nothing more, not even the end.
    expect(early.ended()).toBe(0);

    const full = recorder();
    reader.attach(full.consumer);
    expect(full.taken.map(text)).toEqual(["hand over", "three", "four"]);
    // The end follows a macrotask later, as a stream's own end event follows its data.
    expect(full.ended()).toBe(0);
    await tick();
    expect(full.ended()).toBe(1);
  });

  test("the end reaches the consumer that holds the input when it ends", async () => {
    const input = byteInput();
    const reader = new LineReader(input.stream);
    const only = recorder();
    reader.attach(only.consumer);
    input.end("last line without newline is dropped");
    await tick();
    expect(only.taken).toEqual([]);
    expect(only.ended()).toBe(1);
  });

  test("a line over the limit becomes one oversized mark and reading goes on", async () => {
    const input = byteInput();
    const reader = new LineReader(input.stream, 8);
    const only = recorder();
    reader.attach(only.consumer);
    input.write("0123456789abcdef");
    input.write("more\nok\n");
    await tick();
    expect(only.taken.map(text)).toEqual(["<oversized>", "ok"]);
  });

  test("a read error reaches the consumer, then the end, as a Node stream's close follows its error", async () => {
    const input = byteInput();
    const reader = new LineReader(input.stream);
    const errors: string[] = [];
    let ended = 0;
    reader.attach({
      take: () => true,
      end: () => {
        ended++;
      },
      error: (error) => errors.push(error.message),
    });
    input.fail(new Error("EIO"));
    await tick();
    expect(errors).toEqual(["EIO"]);
    expect(ended).toBe(1);
  });

  test("close stops reading for good: the stream is cancelled and later input is never taken", async () => {
    let cancelled = 0;
    let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
      },
      cancel() {
        cancelled++;
      },
    });
    const reader = new LineReader(stream);
    const only = recorder();
    reader.attach(only.consumer);
    reader.close();
    await tick();
    expect(cancelled).toBe(1);
    expect(() => controller?.enqueue(new TextEncoder().encode("late\n"))).toThrow();
    await tick();
    expect(only.taken).toEqual([]);
    expect(only.ended()).toBe(0);
  });

  test("a throw from a consumer is a fault that crashes loudly, never reported as the input's error", async () => {
    const entry = join(import.meta.dir, "..", "..", "src", "stdio", "line-reader.ts");
    const script = `
      import { LineReader } from ${JSON.stringify(entry)};
      const reader = new LineReader(Bun.stdin.stream());
      reader.attach({
        take: (line) => {
          if (line.text === "boom") throw new Error("a handler's bug");
          console.log("took " + line.text);
          return true;
        },
        end: () => console.log("end"),
        error: (error) => console.log("input error: " + error.message),
      });
    `;
    const run = await runProgram([process.execPath, "-e", script], {
      env: process.env,
      timeoutMs: 30_000,
      stdin: "one\nboom\nthree\n",
    });
    expect(run.stdout).toBe("took one\n");
    expect(run.stderr).toContain("a handler's bug");
    expect(run.exitCode).not.toBe(0);
  });
});

describe("waitForLine", () => {
  test("resolves when a line comes, and leaves it for the next consumer", async () => {
    const input = byteInput();
    const reader = new LineReader(input.stream);
    const started = performance.now();
    const waited = waitForLine(reader, 5_000);
    setTimeout(() => input.write('{"id":1}\n{"id":2}\n'), 20);
    await waited;
    expect(performance.now() - started).toBeLessThan(2_500);
    const taken: string[] = [];
    reader.attach({ take: (line) => taken.push(text(line)) > 0, end: () => {}, error: () => {} });
    expect(taken).toEqual(['{"id":1}', '{"id":2}']);
  });

  test("resolves at once when a line already waits", async () => {
    const input = byteInput();
    const reader = new LineReader(input.stream);
    input.write('{"id":1}\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(reader.waiting()).toHaveLength(1);
    const started = performance.now();
    await waitForLine(reader, 5_000);
    expect(performance.now() - started).toBeLessThan(2_500);
    expect(reader.waiting()).toHaveLength(1);
  });

  test("resolves when the input ends, and the next consumer still hears of the end", async () => {
    const input = byteInput();
    const reader = new LineReader(input.stream);
    const started = performance.now();
    const waited = waitForLine(reader, 5_000);
    input.end();
    await waited;
    expect(performance.now() - started).toBeLessThan(2_500);
    const ended = new Promise<void>((resolve) =>
      reader.attach({ take: () => true, end: resolve, error: () => {} }),
    );
    await ended;
    expect(reader.waiting()).toEqual([]);
  });

  test("resolves after its time when nothing comes; a later line waits for the next consumer", async () => {
    const input = byteInput();
    const reader = new LineReader(input.stream);
    await waitForLine(reader, 10);
    expect(reader.waiting()).toEqual([]);
    input.write('{"id":3}\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(reader.waiting().map(text)).toEqual(['{"id":3}']);
  });
});
