import { expect, test } from "bun:test";
import { createLastLineTracker } from "../../src/execute/create-last-line-tracker.ts";

const encode = (text: string) => new TextEncoder().encode(text);

test.each([
  [[], null],
  [["first\nsecond\n"], "second"],
  [["first\nsec", "ond"], "second"],
  [["Solving: 10%\rSolving: 90%\r"], "Solving: 90%"],
  [["line\n\n  \n"], "line"],
  [["old\n", "x".repeat(5000), "\nnewest line  \n"], "newest line"],
])("the last line of %j is %j", (chunks, expected) => {
  const tracker = createLastLineTracker();
  for (const chunk of chunks) tracker.push(encode(chunk));
  expect(tracker.line()).toBe(expected);
});

test("a very long last line is cut to its end", () => {
  const tracker = createLastLineTracker();
  tracker.push(encode(`${"a".repeat(1000)}END\n`));
  const line = tracker.line() ?? "";
  expect(line.length).toBe(200);
  expect(line.endsWith("END")).toBe(true);
});
