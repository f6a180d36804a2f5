import type { Entry } from "./catalog-cache.ts";

/**
 * A catalog cache entry as stored (`<key>.json`, two JSON texts, one per line): its facts on the
 * first line, conda's parser (the actions and the tree, nearly all of its bytes) on the second.
 * A warm start that the startup snapshot proved reads the first line only, and parses the second
 * when the tree is first needed.
 */
export function entryText(entry: Entry): string {
  const { actions, tree, ...facts } = entry.introspection;
  const head = JSON.stringify({ ...entry, introspection: facts });
  return `${head}\n${JSON.stringify({ actions, tree })}\n`;
}
