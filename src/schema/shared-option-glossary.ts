import type { CatalogCommand } from "../catalog/catalog-types.ts";
import { firstSentence } from "./build-input-schema.ts";

/** Tools that must share an option, with the same help, before it is described only once. */
const SHARED_BY = 3;

/**
 * Options that many tools share with the same first sentence of help (`json`, `channel`,
 * `prefix`, ...): property name → that sentence. A compact tool definition leaves their
 * description out, and the server's instructions give it once.
 */
export function sharedOptionGlossary(commands: readonly CatalogCommand[]): Map<string, string> {
  const counts = new Map<string, Map<string, number>>();
  for (const command of commands) {
    for (const param of command.params) {
      if (param.option === null || param.deprecated || !param.description) continue;
      const sentence = firstSentence(param.description);
      const bySentence = counts.get(param.name) ?? new Map<string, number>();
      bySentence.set(sentence, (bySentence.get(sentence) ?? 0) + 1);
      counts.set(param.name, bySentence);
    }
  }
  const glossary = new Map<string, string>();
  for (const [name, bySentence] of [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const [sentence, count] = [...bySentence].sort((a, b) => b[1] - a[1])[0] ?? ["", 0];
    if (count >= SHARED_BY) glossary.set(name, sentence);
  }
  return glossary;
}
