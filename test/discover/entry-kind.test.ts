import { expect, test } from "bun:test";
import { ENTRY_KIND } from "../../src/discover/entry-kind.ts";
import { INTROSPECT_SOURCE } from "../../src/discover/introspect-source.ts";
import { sha256Hex } from "../../src/sha256-hex.ts";

// Entries made by another introspection script must not be taken: the digest written in
// entry-kind.ts must be the embedded script's. When introspect.py changes, this names the value.
test("names the embedded introspection script by its sha256", () => {
  const digest = sha256Hex(INTROSPECT_SOURCE);
  expect(
    ENTRY_KIND.introspectDigest,
    `introspect.py changed: set INTROSPECT_DIGEST in src/discover/entry-kind.ts to "${digest}"`,
  ).toBe(digest);
});
