import type { InputLine } from "./line-reader.ts";

/** The JSON message a line holds, or null for an oversized line or one that is not JSON. */
export function parseInputLine(line: InputLine): { message: unknown } | null {
  if ("oversized" in line) return null;
  try {
    return { message: JSON.parse(line.text) };
  } catch {
    return null;
  }
}
