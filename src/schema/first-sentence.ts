/** The first sentence of a help text (an "e.g." or "i.e." does not end one). */
export function firstSentence(text: string): string {
  const end = text.search(/(?<!\b(?:e\.g|i\.e|etc|vs))[.!?](\s|$)/);
  return end === -1 ? text.trim() : text.slice(0, end + 1).trim();
}
