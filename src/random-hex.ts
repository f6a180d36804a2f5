/**
 * `bytes` random bytes in hex, from the Web Crypto global: importing node:crypto would make bun
 * build it and node:stream, several milliseconds, in the start or call that first loads it.
 */
export function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}
