import { describe, expect, test } from "bun:test";
import { readCapped } from "../../src/execute/read-capped.ts";
import { deadline } from "./process-test-helpers.ts";

function streamOf(chunks: readonly (number[] | Uint8Array)[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) {
        controller.enqueue(chunk instanceof Uint8Array ? chunk : new Uint8Array(chunk));
      }
      controller.close();
    },
  });
}

const bytes = (text: string) => [...new TextEncoder().encode(text)];

describe("readCapped", () => {
  test.each([
    ["fits exactly", [bytes("héllo")], 6, "héllo", false],
    ["cuts ASCII at the cap", [bytes("abcdef")], 4, "abcd", true],
    ["never splits a 2-byte character", [bytes("aé")], 2, "a", true],
    ["never splits a 3-byte character", [bytes("ab€")], 4, "ab", true],
    ["keeps a whole 3-byte character", [bytes("ab€c")], 5, "ab€", true],
    ["never splits a 4-byte character", [bytes("😀x")], 3, "", true],
    [
      "joins a character split across chunks",
      [
        [0x61, 0xe2],
        [0x82, 0xac],
      ],
      8,
      "a€",
      false,
    ],
    ["keeps nothing with a zero cap", [bytes("x")], 0, "", true],
    ["reads an empty stream", [], 4, "", false],
  ])("%s", async (_, chunks, cap, text, truncated) => {
    const read = readCapped(streamOf(chunks), cap);
    expect(await deadline(read.result, 5000, "readCapped")).toEqual({ text, truncated });
  });

  test("drains past the cap and reports every chunk", async () => {
    const seen: number[] = [];
    const read = readCapped(streamOf([bytes("aaaa"), bytes("bbbb"), bytes("cc")]), 5, (chunk) =>
      seen.push(chunk.byteLength),
    );
    expect(await deadline(read.result, 5000, "readCapped")).toEqual({
      text: "aaaab",
      truncated: true,
    });
    expect(seen).toEqual([4, 4, 2]);
  });

  test("a dropped chunk is released at once, and the kept head is left intact", async () => {
    const chunks = [bytes("aaaa"), bytes("bbbb"), bytes("cc")].map((c) => new Uint8Array(c));
    const read = readCapped(streamOf(chunks), 5);
    expect(await deadline(read.result, 5000, "readCapped")).toEqual({
      text: "aaaab",
      truncated: true,
    });
    expect(chunks.map((chunk) => chunk.buffer.byteLength)).toEqual([4, 0, 0]);
  });

  test("a dropped chunk sharing its buffer with other views is not released", async () => {
    const shared = new Uint8Array(new TextEncoder().encode("aaaabbbb"));
    const read = readCapped(streamOf([shared.subarray(0, 4), shared.subarray(4)]), 2);
    expect(await deadline(read.result, 5000, "readCapped")).toEqual({
      text: "aa",
      truncated: true,
    });
    expect(new TextDecoder().decode(shared)).toBe("aaaabbbb");
  });

  test("stop ends a read whose stream never closes, keeping what arrived", async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("partial"));
      },
    });
    const read = readCapped(stream, 100);
    await Bun.sleep(10);
    read.stop();
    expect(await deadline(read.result, 5000, "stopped readCapped")).toEqual({
      text: "partial",
      truncated: false,
    });
  });
});
