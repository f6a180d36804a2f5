/**
 * The sha256 of introspect.py, written here rather than computed so that a warm start, which
 * names its snapshot by it, need not load the script; test/discover/entry-kind.test.ts fails,
 * naming the new value, when the script changes.
 */
const INTROSPECT_DIGEST: string =
  "4c1e6a05d680c03db266dae283b86c41d8e3b23401449c20ada32d8b59ebcaec";

/** What makes a catalog cache entry this program's kind: its format and the script that made it. */
export const ENTRY_KIND = { format: 2, introspectDigest: INTROSPECT_DIGEST } as const;
