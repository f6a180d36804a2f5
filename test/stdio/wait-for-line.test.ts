import { describe, expect, test } from "bun:test";
import { type InputLine, LineReader } from "../../src/stdio/line-reader.ts";
import { waitForLine } from "../../src/stdio/wait-for-line.ts";
import { byteInput } from "../support/byte-input.ts";

const text = (line: InputLine) => ("text" in line ? line.text : "<oversized>");

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
