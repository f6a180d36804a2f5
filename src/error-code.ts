import { isJsonObject } from "./is-json-object.ts";

/** The `code` of a system error (`ENOENT`), for messages that never carry paths or contents. */
export function errorCode(error: unknown): string | undefined {
  const code = isJsonObject(error) ? error.code : undefined;
  return typeof code === "string" ? code : undefined;
}
