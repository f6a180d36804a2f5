import { createHash } from "node:crypto";

/** The sha256 of a text (as UTF-8), in hex. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
