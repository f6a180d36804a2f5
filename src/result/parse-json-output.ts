/**
 * Parses stdout when it is exactly one complete JSON document (whitespace around it allowed) and
 * was not truncated; anything else, such as conda's NUL-separated progress records, gives null.
 */
export function parseJsonOutput(stdout: string, truncated: boolean): unknown {
  if (truncated || stdout.includes("\0")) return null;
  try {
    return JSON.parse(stdout);
  } catch {
    // Not JSON, several documents, or trailing text.
    return null;
  }
}
