import { describe, expect, test } from "bun:test";
import { splitLines } from "../../src/discover/split-lines.ts";

const decoder = new TextDecoder();

describe("splitLines", () => {
  test.each([
    ["no bytes", ""],
    ["one line without a break", "a"],
    ["one line with its break", "a\n"],
    ["empty lines", "\n\n"],
    ["lines of multibyte characters", "±1 − 2\n“quoted”\n"],
    ["a last line without a break", "{}\n{}"],
  ])("cuts %s where String.split does", (_name, text) => {
    const bytes = new TextEncoder().encode(text);
    const lines = splitLines(bytes);
    expect(lines.map((line) => decoder.decode(line))).toEqual(text.split("\n"));
    // Views of the bytes read, not copies.
    for (const line of lines) expect(line.buffer).toBe(bytes.buffer);
  });
});
