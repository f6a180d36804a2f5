import * as v from "valibot";
import { isJsonObject } from "../values.ts";
import { type CompletionManifest, CompletionManifestSchema } from "./completion-manifest.ts";

/** Structure limits enforced while a decoded manifest is converted and validated. */
export interface ManifestLimits {
  /** Deepest nesting of maps and lists accepted (the root map is depth 1). */
  maxDepth: number;
  /** Most map entries plus list items accepted in the whole file (`package_names` excluded). */
  maxEntries: number;
}

/** Defaults that leave a real manifest (about 15 levels, tens of thousands of entries) room. */
export const DEFAULT_MANIFEST_LIMITS: ManifestLimits = { maxDepth: 64, maxEntries: 1_000_000 };

/** The outcome of validation: the typed manifest, or a reason that never quotes file content. */
export type ManifestValidation =
  | { success: true; manifest: CompletionManifest }
  | { success: false; reason: string };

/**
 * Converts a value decoded by msgpackr (with `mapsAsObjects: false`, so maps arrive as `Map`) into
 * a typed manifest: maps become null-prototype objects, 64-bit integers become numbers when safe
 * and exact decimal strings otherwise, limits are enforced, `package_names` is dropped, and the
 * result is checked against CompletionManifestSchema (which drops unknown keys).
 */
export function validateManifest(
  decoded: unknown,
  limits: ManifestLimits = DEFAULT_MANIFEST_LIMITS,
): ManifestValidation {
  if (!(decoded instanceof Map)) return { success: false, reason: "manifest root is not a map" };
  // package_names can be the largest part of the file and is never returned: skip it unread.
  const root = new Map(decoded);
  root.delete("package_names");
  const plain: PlainContext = { fault: null, entries: 0, limits };
  const data = toPlain(root, 1, plain);
  if (plain.fault !== null) return { success: false, reason: plain.fault };
  const parsed = v.safeParse(CompletionManifestSchema, data, { abortEarly: true });
  if (!parsed.success) return { success: false, reason: describeIssue(parsed.issues[0]) };
  // Frozen: callers share one cached manifest and get parts of it back by reference.
  return { success: true, manifest: deepFreeze(parsed.output) };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

type Plain = null | boolean | number | string | Plain[] | PlainDict;
type PlainDict = { readonly [key: string]: Plain };

interface PlainContext {
  fault: string | null;
  entries: number;
  limits: ManifestLimits;
}

function toPlain(value: unknown, depth: number, ctx: PlainContext): Plain {
  if (ctx.fault !== null) return null;
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      if (Number.isFinite(value)) return value;
      ctx.fault = "manifest contains a non-finite number";
      return null;
    case "bigint":
      // msgpack int64/uint64: keep the exact value, as a number only when no precision is lost.
      return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(value)
        : value.toString();
    case "object":
      break;
    default:
      ctx.fault = "manifest contains an unsupported msgpack value";
      return null;
  }
  if (value === null) return null;
  if (depth > ctx.limits.maxDepth) {
    ctx.fault = `manifest nests deeper than ${ctx.limits.maxDepth} levels`;
    return null;
  }
  if (Array.isArray(value)) {
    if (!countEntries(value.length, ctx)) return null;
    const list: Plain[] = [];
    for (const item of value) {
      list.push(toPlain(item, depth + 1, ctx));
      if (ctx.fault !== null) return null;
    }
    return list;
  }
  if (value instanceof Map) {
    if (!countEntries(value.size, ctx)) return null;
    const dict: Record<string, Plain> = Object.create(null);
    for (const [key, item] of value) {
      if (typeof key !== "string") {
        ctx.fault = "manifest contains a map key that is not a string";
        return null;
      }
      const converted = toPlain(item, depth + 1, ctx);
      if (ctx.fault !== null) return null;
      // defineProperty creates an own data property even for "__proto__"; never a prototype change.
      Object.defineProperty(dict, key, {
        value: converted,
        enumerable: true,
        writable: false,
        configurable: false,
      });
    }
    return dict;
  }
  // Binary data, timestamps, and msgpackr's own extensions (records, sets, errors...) are
  // never written by conda-completion.
  ctx.fault = "manifest contains an unsupported msgpack value";
  return null;
}

function countEntries(count: number, ctx: PlainContext): boolean {
  ctx.entries += count;
  if (ctx.entries <= ctx.limits.maxEntries) return true;
  ctx.fault = `manifest has more than ${ctx.limits.maxEntries} entries`;
  return false;
}

/**
 * The first issue as a reason: a schematic field path (map keys from the file appear as `*`,
 * items of lists of maps as `[]`) and the expectation, never the value found.
 */
function describeIssue(issue: v.BaseIssue<unknown>): string {
  let path = "";
  for (const item of issue.path ?? []) {
    if (item.type === "array") {
      // An item of a list of maps is `[]`; an issue inside a list of strings (or of lists of
      // strings) is the list's own, and its items carry the list's message.
      if (!isJsonObject(item.value) && issue.type !== "object") break;
      path += "[]";
    } else {
      const key = item.type === "unknown" ? "*" : String(item.key);
      path = path === "" ? key : `${path}.${key}`;
    }
  }
  return `manifest field ${path}: expected ${issue.message}`;
}
