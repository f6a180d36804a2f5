import { describe, expect, test } from "bun:test";
import { decodeUtf8, splitLines, userCacheDir } from "../../src/discover/cache-file.ts";

describe("decodeUtf8", () => {
  test("decodes UTF-8, multibyte characters included", () => {
    expect(decodeUtf8(new TextEncoder().encode('{"a": "±2^53 − 1"}'))).toBe('{"a": "±2^53 − 1"}');
    expect(decodeUtf8(new Uint8Array())).toBe("");
  });

  test.each([
    ["a lone continuation byte", [0x7b, 0x80, 0x7d]],
    ["a sequence cut short", [0x22, 0xe2, 0x88]],
    ["bytes that are never UTF-8", [0xff, 0xfe, 0x00]],
  ])("is null for %s, never a replacement character", (_name, bytes) => {
    expect(decodeUtf8(new Uint8Array(bytes))).toBeNull();
  });
});

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

test.each([
  ["linux", {}, "/home/u", "/home/u/.cache/conda-mcp"],
  ["linux", { XDG_CACHE_HOME: "/xdg/cache" }, "/home/u", "/xdg/cache/conda-mcp"],
  ["linux", { XDG_CACHE_HOME: "relative/cache" }, "/home/u", "/home/u/.cache/conda-mcp"],
  ["linux", { XDG_CACHE_HOME: "" }, "/home/u", "/home/u/.cache/conda-mcp"],
  ["freebsd", { XDG_CACHE_HOME: "/xdg" }, "/home/u", "/xdg/conda-mcp"],
  ["darwin", {}, "/Users/u", "/Users/u/Library/Caches/conda-mcp"],
  ["darwin", { XDG_CACHE_HOME: "/xdg" }, "/Users/u", "/Users/u/Library/Caches/conda-mcp"],
  [
    "win32",
    { LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local" },
    "C:\\Users\\u",
    "C:\\Users\\u\\AppData\\Local\\conda-mcp\\Cache",
  ],
  ["win32", {}, "C:\\Users\\u", "C:\\Users\\u\\AppData\\Local\\conda-mcp\\Cache"],
  [
    "win32",
    { LOCALAPPDATA: "relative" },
    "C:\\Users\\u",
    "C:\\Users\\u\\AppData\\Local\\conda-mcp\\Cache",
  ],
  ["linux", {}, "", null],
  ["linux", {}, "relative/home", null],
  ["linux", { XDG_CACHE_HOME: "/xdg" }, "", "/xdg/conda-mcp"],
  ["darwin", {}, "", null],
  ["win32", {}, "", null],
] as const)("on %s with %j and home %j the cache folder is %j", (platform, env, home, expected) => {
  expect(userCacheDir({ env, platform, home })).toBe(expected);
});
