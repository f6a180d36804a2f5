import { expect, test } from "bun:test";
import { ENTRY_KIND } from "../../src/discover/cache-key.ts";
import { INTROSPECT_SOURCE } from "../../src/discover/start-introspection.ts";
import { sha256Hex } from "../../src/values.ts";

// Entries made by another introspection script must not be taken: the digest written in
// cache-key.ts must be the embedded script's. When introspect.py changes, this names the value.
test("names the embedded introspection script by its sha256", () => {
  const digest = sha256Hex(INTROSPECT_SOURCE);
  expect(
    ENTRY_KIND.introspectDigest,
    `introspect.py changed: set INTROSPECT_DIGEST in src/discover/cache-key.ts to "${digest}"`,
  ).toBe(digest);
});
