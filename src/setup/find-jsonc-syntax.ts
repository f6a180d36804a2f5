/** Where a comment starts at `i` (`//` or `/*`), the index just past it; otherwise null. */
function commentEnd(text: string, i: number): number | null {
  if (text[i] !== "/") return null;
  if (text[i + 1] === "/") {
    const newline = text.indexOf("\n", i);
    return newline === -1 ? text.length : newline;
  }
  if (text[i + 1] === "*") {
    const close = text.indexOf("*/", i + 2);
    return close === -1 ? text.length : close + 2;
  }
  return null;
}

/** Past whitespace and comments from `i`. */
function skipBlank(text: string, i: number): number {
  for (;;) {
    while (/\s/.test(text[i] ?? "")) i++;
    const end = commentEnd(text, i);
    if (end === null) return i;
    i = end;
  }
}

/**
 * Whether a text that is not plain JSON uses what JSON with comments allows (as VS Code and
 * Gemini CLI read their files): a `//` or `/* *\/` comment, or a comma before `}` or `]`.
 */
export function findJsoncSyntax(text: string): "comments" | "trailing commas" | null {
  let trailingComma = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      // Past the string: a backslash escapes the next character, whatever it is.
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
    } else if (commentEnd(text, i) !== null) {
      return "comments";
    } else if (char === ",") {
      const next = text[skipBlank(text, i + 1)];
      if (next === "}" || next === "]") trailingComma = true;
    }
  }
  return trailingComma ? "trailing commas" : null;
}
