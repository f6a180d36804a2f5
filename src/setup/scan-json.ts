/** Where one JSON value lies in a text: `start` up to (not including) `end`. */
export interface JsonSpan {
  readonly start: number;
  readonly end: number;
  /** An object's members, in the text's order; absent for every other value. */
  readonly members?: readonly JsonMember[];
}

/** One member of an object: its key (decoded), where the key's quotes are, and its value. */
export interface JsonMember {
  readonly key: string;
  readonly keyStart: number;
  readonly keyEnd: number;
  readonly value: JsonSpan;
}

function skipWhitespace(text: string, i: number): number {
  while (i < text.length && " \t\n\r".includes(text[i] as string)) i++;
  return i;
}

/** `i` is within the text, or the text was not the JSON its caller promised. */
function within(text: string, i: number): number {
  if (i >= text.length) throw new Error("scanJson was given a text that is not JSON");
  return i;
}

/** Past the closing quote of the string whose opening quote is at `i`. */
function stringEnd(text: string, i: number): number {
  for (i++; text[within(text, i)] !== '"'; i++) if (text[i] === "\\") i++;
  return i + 1;
}

/** Past the next `,` if there is one, and the whitespace around it. */
function skipComma(text: string, i: number): number {
  i = skipWhitespace(text, i);
  return text[i] === "," ? skipWhitespace(text, i + 1) : i;
}

function scanObject(text: string, start: number): JsonSpan {
  const members: JsonMember[] = [];
  let i = skipWhitespace(text, start + 1);
  while (text[within(text, i)] !== "}") {
    const keyEnd = stringEnd(text, i);
    const key: string = JSON.parse(text.slice(i, keyEnd));
    // Past the colon and the whitespace on either side of it.
    const value = scanValue(text, skipWhitespace(text, skipWhitespace(text, keyEnd) + 1));
    members.push({ key, keyStart: i, keyEnd, value });
    i = skipComma(text, value.end);
  }
  return { start, end: i + 1, members };
}

function scanArray(text: string, start: number): JsonSpan {
  let i = skipWhitespace(text, start + 1);
  while (text[within(text, i)] !== "]") i = skipComma(text, scanValue(text, i).end);
  return { start, end: i + 1 };
}

function scanValue(text: string, start: number): JsonSpan {
  const first = text[within(text, start)];
  if (first === "{") return scanObject(text, start);
  if (first === "[") return scanArray(text, start);
  if (first === '"') return { start, end: stringEnd(text, start) };
  // A number, true, false or null runs up to the next delimiter.
  let end = start;
  while (end < text.length && !" \t\n\r,]}".includes(text[end] as string)) end++;
  return { start, end };
}

/**
 * Where each value of a JSON text lies, so that one member can be replaced or added while
 * every other character stays as it was. The text must be JSON (`JSON.parse` accepted it).
 */
export function scanJson(text: string): JsonSpan {
  return scanValue(text, skipWhitespace(text, 0));
}
