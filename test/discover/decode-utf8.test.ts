import { describe, expect, test } from "bun:test";
import { decodeUtf8 } from "../../src/discover/decode-utf8.ts";

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
