const LINE_FEED = 0x0a;

/**
 * The lines of a file's bytes, each without its line break, as views of `bytes` (no copies):
 * a file that ends with a line break ends with an empty line, as String.split gives.
 */
export function splitLines(bytes: Uint8Array): Uint8Array[] {
  const lines: Uint8Array[] = [];
  let start = 0;
  for (let end = bytes.indexOf(LINE_FEED); end >= 0; end = bytes.indexOf(LINE_FEED, start)) {
    lines.push(bytes.subarray(start, end));
    start = end + 1;
  }
  lines.push(bytes.subarray(start));
  return lines;
}
