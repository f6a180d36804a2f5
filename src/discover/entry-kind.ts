import { introspectDigest } from "./introspect-digest.ts" with { type: "macro" };

/**
 * What makes a catalog cache entry this program's kind: its format and the digest of the
 * introspection script that made it. The digest is computed when the program is bundled or
 * transpiled (a macro), so that a warm start checks against it without loading the script.
 */
export const ENTRY_KIND = { format: 1, introspectDigest: introspectDigest() } as const;
