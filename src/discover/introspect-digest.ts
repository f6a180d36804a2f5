import { sha256Hex } from "../sha256-hex.ts";
import { INTROSPECT_SOURCE } from "./introspect-source.ts";

/**
 * The sha256 of the embedded introspection script. Imported as a macro (entry-kind.ts), it runs
 * when the importing module is bundled or transpiled, and leaves only the digest in the program.
 */
export function introspectDigest(): string {
  return sha256Hex(INTROSPECT_SOURCE);
}
