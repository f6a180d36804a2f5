/**
 * The sha256 of a text (as UTF-8) or of bytes, in hex; Bun's own hasher, not node:crypto (see
 * randomHex).
 */
export function sha256Hex(text: string | Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}
