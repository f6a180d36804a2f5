import { expect, test } from "bun:test";
import { parseJsonOutput } from "../../src/result/execution-result.ts";

test.each([
  ['{"a": [1, 2]}', { a: [1, 2] }],
  ['\n  {"envs": []}\n\n', { envs: [] }],
  ["[1, 2, 3]\n", [1, 2, 3]],
  ['"text"', "text"],
  ["42", 42],
])("one JSON document %j is parsed", (stdout, expected) => {
  expect(parseJsonOutput(stdout, false)).toEqual(expected);
});

test.each([
  ['{"fetch": "a"}\n\0{"success": true}\n\0'],
  ['{"a": 1}{"b": 2}'],
  ['{"a": 1}\ntrailing text'],
  ["Collecting package metadata: done"],
  [""],
  ["   \n"],
  ['{"a": '],
])("anything but one JSON document gives null: %#", (stdout) => {
  expect(parseJsonOutput(stdout, false)).toBeNull();
});

test("truncated output is never parsed, even when it happens to be valid JSON", () => {
  expect(parseJsonOutput('{"a": 1}', true)).toBeNull();
});
