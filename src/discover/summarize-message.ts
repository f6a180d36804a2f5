const SUMMARY_LENGTH = 200;

/** A message as one line of at most 200 characters, for an error that quotes conda's Python. */
export function summarizeMessage(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > SUMMARY_LENGTH ? `${flat.slice(0, SUMMARY_LENGTH - 1)}…` : flat;
}
