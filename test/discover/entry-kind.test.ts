import { expect, test } from "bun:test";
import { ENTRY_KIND } from "../../src/discover/entry-kind.ts";
import { INTROSPECT_SOURCE } from "../../src/discover/introspect-source.ts";
import { sha256Hex } from "../../src/sha256-hex.ts";

// The digest is a macro's result, computed when entry-kind.ts was transpiled: it must still
// name the script the program embeds, or entries made by another script would be taken.
test("names the embedded introspection script by its sha256", () => {
  expect(ENTRY_KIND.introspectDigest).toBe(sha256Hex(INTROSPECT_SOURCE));
  expect(ENTRY_KIND.introspectDigest).toMatch(/^[0-9a-f]{64}$/);
});
