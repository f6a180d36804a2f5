/**
 * The sha256 of introspect.py, written here rather than computed so that a warm start, which
 * names its snapshot by it, need not load the script; test/discover/entry-kind.test.ts fails,
 * naming the new value, when the script changes.
 */
const INTROSPECT_DIGEST: string =
  "9206624e2665c4b9e9e7f75dcd449640cdb3185ddc135d9c7eb9509aae25b7ea";

/** What makes a catalog cache entry this program's kind: its format and the script that made it. */
export const ENTRY_KIND = { format: 2, introspectDigest: INTROSPECT_DIGEST } as const;
