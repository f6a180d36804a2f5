/** True for a JSON object: not null, not an array (which `typeof` also calls "object"). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
