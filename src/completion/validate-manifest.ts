import { isStringList } from "../is-string-list.ts";
import type {
  CompletionManifest,
  ManifestAlias,
  ManifestCommand,
  ManifestCompletion,
  ManifestCompletionRule,
  ManifestDict,
  ManifestOption,
  ManifestPositional,
  ManifestRuntimeSource,
} from "./completion-manifest.ts";

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
 * and exact decimal strings otherwise, limits are enforced, unknown keys and `package_names` are
 * dropped, and every field the program relies on is type-checked.
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
  const ctx: Context = { fault: null };
  const manifest = readManifestRoot(data as PlainDict, ctx);
  if (ctx.fault !== null || manifest === null) {
    return { success: false, reason: ctx.fault ?? "manifest is malformed" };
  }
  // Frozen: callers share one cached manifest and get parts of it back by reference.
  return { success: true, manifest: deepFreeze(manifest) };
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

interface Context {
  fault: string | null;
}

/** Joins a schematic field path: map keys from the file appear as `*`, list items as `[]`. */
function at(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function fail(ctx: Context, path: string, expected: string): null {
  ctx.fault ??= `manifest field ${path}: expected ${expected}`;
  return null;
}

function isDict(value: Plain | undefined): value is PlainDict {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Own-property lookup; an absent key and an explicit nil both read as undefined. */
function get(dict: PlainDict, key: string): Plain | undefined {
  if (!Object.hasOwn(dict, key)) return undefined;
  const value = dict[key];
  return value === null ? undefined : value;
}

function newDict<T>(): Record<string, T> {
  return Object.create(null);
}

function setOwn<T>(dict: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(dict, key, { value, enumerable: true, writable: true, configurable: true });
}

function optString(dict: PlainDict, key: string, path: string, ctx: Context): string | undefined {
  const value = get(dict, key);
  if (value === undefined || typeof value === "string") return value;
  fail(ctx, at(path, key), "a string");
  return undefined;
}

function optStringList(
  dict: PlainDict,
  key: string,
  path: string,
  ctx: Context,
): string[] | undefined {
  const value = get(dict, key);
  if (value === undefined) return undefined;
  if (isStringList(value)) return value;
  fail(ctx, at(path, key), "a list of strings");
  return undefined;
}

/** Copies the optional fields that are present, so absent stays absent in the output. */
function pick<T extends object>(fields: Partial<T>): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out as T;
}

function readDict<T>(
  parent: PlainDict,
  key: string,
  path: string,
  ctx: Context,
  readEntry: (entry: PlainDict, entryPath: string) => T | null,
): ManifestDict<T> {
  const out = newDict<T>();
  const value = get(parent, key);
  if (value === undefined) return out;
  const here = at(path, key);
  if (!isDict(value)) {
    fail(ctx, here, "a map");
    return out;
  }
  for (const name of Object.keys(value)) {
    const entry = value[name];
    if (!isDict(entry)) {
      fail(ctx, `${here}.*`, "a map");
      return out;
    }
    const read = readEntry(entry, `${here}.*`);
    if (read === null || ctx.fault !== null) return out;
    setOwn(out, name, read);
  }
  return out;
}

function readOption(dict: PlainDict, path: string, ctx: Context): ManifestOption | null {
  const required = get(dict, "required");
  if (required !== undefined && typeof required !== "boolean") {
    return fail(ctx, at(path, "required"), "a boolean");
  }
  return pick<ManifestOption>({
    short: optString(dict, "short", path, ctx),
    choices: optStringList(dict, "choices", path, ctx),
    nargs: optString(dict, "nargs", path, ctx),
    completion_type: optString(dict, "completion_type", path, ctx),
    description: optString(dict, "description", path, ctx),
    metavar: optString(dict, "metavar", path, ctx),
    default: optString(dict, "default", path, ctx),
    required,
    group: optString(dict, "group", path, ctx),
  });
}

function readCompletion(
  dict: PlainDict,
  path: string,
  ctx: Context,
): ManifestCompletion | undefined {
  const value = get(dict, "completion");
  if (value === undefined) return undefined;
  const here = at(path, "completion");
  if (!isDict(value)) return fail(ctx, here, "a map") ?? undefined;
  const rulesValue = get(value, "rules");
  let rules: ManifestCompletionRule[] | undefined;
  if (rulesValue !== undefined) {
    if (!Array.isArray(rulesValue)) return fail(ctx, `${here}.rules`, "a list") ?? undefined;
    rules = [];
    for (const rule of rulesValue) {
      if (!isDict(rule)) return fail(ctx, `${here}.rules[]`, "a map") ?? undefined;
      rules.push(
        pick<ManifestCompletionRule>({
          sources: optStringList(rule, "sources", `${here}.rules[]`, ctx),
          when_options: optStringList(rule, "when_options", `${here}.rules[]`, ctx),
        }),
      );
    }
  }
  return pick<ManifestCompletion>({ sources: optStringList(value, "sources", here, ctx), rules });
}

function readPositionals(dict: PlainDict, path: string, ctx: Context): ManifestPositional[] {
  const value = get(dict, "positionals");
  if (value === undefined) return [];
  const here = at(path, "positionals");
  if (!Array.isArray(value)) return fail(ctx, here, "a list") ?? [];
  const out: ManifestPositional[] = [];
  for (const item of value) {
    if (!isDict(item)) return fail(ctx, `${here}[]`, "a map") ?? [];
    const name = get(item, "name");
    if (typeof name !== "string") return fail(ctx, `${here}[].name`, "a string") ?? [];
    out.push(
      pick<ManifestPositional>({
        name,
        choices: optStringList(item, "choices", `${here}[]`, ctx),
        nargs: optString(item, "nargs", `${here}[]`, ctx),
        completion_type: optString(item, "completion_type", `${here}[]`, ctx),
        completion: readCompletion(item, `${here}[]`, ctx),
        description: optString(item, "description", `${here}[]`, ctx),
        metavar: optString(item, "metavar", `${here}[]`, ctx),
      }),
    );
  }
  return out;
}

function readExclusiveGroups(dict: PlainDict, path: string, ctx: Context): string[][] {
  const value = get(dict, "exclusive_groups");
  if (value === undefined) return [];
  if (Array.isArray(value) && value.every(isStringList)) return value as string[][];
  return fail(ctx, at(path, "exclusive_groups"), "a list of lists of strings") ?? [];
}

function readCommand(dict: PlainDict, path: string, ctx: Context): ManifestCommand | null {
  const command: ManifestCommand = {
    options: readDict(dict, "options", path, ctx, (entry, at) => readOption(entry, at, ctx)),
    positionals: readPositionals(dict, path, ctx),
    // The manifest's depth limit bounds this recursion.
    subcommands: readDict(dict, "subcommands", path, ctx, (entry, at) =>
      readCommand(entry, at, ctx),
    ),
    exclusive_groups: readExclusiveGroups(dict, path, ctx),
  };
  const summary = optString(dict, "summary", path, ctx);
  if (summary !== undefined) command.summary = summary;
  return ctx.fault === null ? command : null;
}

function readAlias(dict: PlainDict, path: string, ctx: Context): ManifestAlias | null {
  const target = get(dict, "target");
  if (target === undefined || !isStringList(target)) {
    return fail(ctx, at(path, "target"), "a list of strings");
  }
  return pick<ManifestAlias>({ target, description: optString(dict, "description", path, ctx) });
}

function readRuntimeSource(
  dict: PlainDict,
  path: string,
  ctx: Context,
): ManifestRuntimeSource | null {
  const maxEntries = get(dict, "max_entries");
  const integral =
    (typeof maxEntries === "number" && Number.isInteger(maxEntries)) ||
    (typeof maxEntries === "string" && /^-?\d+$/.test(maxEntries));
  if (maxEntries !== undefined && !integral) {
    return fail(ctx, at(path, "max_entries"), "an integer");
  }
  return pick<ManifestRuntimeSource>({
    kind: optString(dict, "kind", path, ctx),
    description: optString(dict, "description", path, ctx),
    group: optString(dict, "group", path, ctx),
    env_var: optString(dict, "env_var", path, ctx),
    env_suffix: optStringList(dict, "env_suffix", path, ctx),
    home_suffix: optStringList(dict, "home_suffix", path, ctx),
    entry_type: optString(dict, "entry_type", path, ctx),
    strip_suffix: optString(dict, "strip_suffix", path, ctx),
    max_entries: maxEntries as number | string | undefined,
  });
}

function readManifestRoot(root: PlainDict, ctx: Context): CompletionManifest | null {
  if (get(root, "version") !== 1) return fail(ctx, "version", "the number 1");
  if (!isDict(get(root, "commands"))) return fail(ctx, "commands", "a map");
  const manifest: CompletionManifest = {
    version: 1,
    generated_at: optString(root, "generated_at", "", ctx) ?? null,
    plugin_hash: optString(root, "plugin_hash", "", ctx) ?? null,
    root_options: readDict(root, "root_options", "", ctx, (entry, at) =>
      readOption(entry, at, ctx),
    ),
    commands: readDict(root, "commands", "", ctx, (entry, at) => readCommand(entry, at, ctx)),
    aliases: readDict(root, "aliases", "", ctx, (entry, at) => readAlias(entry, at, ctx)),
    runtime_sources: readDict(root, "runtime_sources", "", ctx, (entry, at) =>
      readRuntimeSource(entry, at, ctx),
    ),
  };
  return ctx.fault === null ? manifest : null;
}
