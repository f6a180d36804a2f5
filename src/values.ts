// Checks, orderings and digests of plain values that every stage uses.

/** True for a JSON object: not null, not an array (which `typeof` also calls "object"). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The `code` of a system error (`ENOENT`), for messages that never carry paths or contents. */
export function errorCode(error: unknown): string | undefined {
  const code = isJsonObject(error) ? error.code : undefined;
  return typeof code === "string" ? code : undefined;
}

/** Orders strings by UTF-16 code unit: stable and independent of the host's locale (no ICU). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The sha256 of a text (as UTF-8) or of bytes, in hex; Bun's own hasher, not node:crypto (see
 * randomHex).
 */
export function sha256Hex(text: string | Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}
