import { sha256Hex } from "../values.ts";

/**
 * conda-completion's `plugin_hash`: the first 16 hex digits of the SHA-256 of the entry-point
 * names of group `conda`, sorted as Python sorts strings (by code point) and joined with `|`.
 * Duplicates are kept, as the plugin keeps them.
 */
export function pluginHash(entryPointNames: readonly string[]): string {
  const sorted = [...entryPointNames].sort(compareCodePoints);
  return sha256Hex(sorted.join("|")).slice(0, 16);
}

// JavaScript's default sort compares UTF-16 code units, which orders characters above U+FFFF
// (surrogate pairs) before U+E000..U+FFFF; Python compares code points.
function compareCodePoints(a: string, b: string): number {
  const left = a[Symbol.iterator]();
  const right = b[Symbol.iterator]();
  for (;;) {
    const x = left.next();
    const y = right.next();
    if (x.done || y.done) return x.done === y.done ? 0 : x.done ? -1 : 1;
    const cx = x.value.codePointAt(0) ?? 0;
    const cy = y.value.codePointAt(0) ?? 0;
    if (cx !== cy) return cx - cy;
  }
}
