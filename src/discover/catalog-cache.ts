import path from "node:path";
import * as v from "valibot";
import {
  describeFirstIssue,
  type IntrospectionDocument,
  introspectionDocumentSchema,
} from "../introspection-payload.ts";
import { errorCode, isJsonObject, sha256Hex } from "../values.ts";
import {
  catalogEntryName,
  decodeUtf8,
  markCacheFileUsed,
  readPrivateFile,
  splitLines,
} from "./cache-file.ts";
import {
  type CachedDiscovery,
  type CacheStamp,
  type CatalogCacheOptions,
  ENTRY_KIND,
  stampProblem,
} from "./cache-key.ts";
import { fingerprintInputSchema } from "./compute-fingerprint.ts";
import { PYTHON_SOURCES } from "./resolve-python.ts";

/** Entries larger than this are ignored unread (a real conda's tree is about 1 MiB). */
export const MAX_CATALOG_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * What a startup snapshot proves of the catalog entry it was recorded from, moments after it
 * was read: its stamp holds (not checked again), and, when known, the sha256 of the entry's
 * text, which this same program validated, or wrote from a validated payload, when it recorded
 * the snapshot (an entry with that digest is not validated again).
 */
export interface ProvenEntry {
  stamp: CacheStamp;
  entryDigest: string | null;
}

/** An entry on disk: the stamp's parts (its root prefix is the introspection's) and what it restores. */
const entrySchema = v.object({
  format: v.literal(ENTRY_KIND.format),
  introspectDigest: v.literal(ENTRY_KIND.introspectDigest),
  key: v.string(),
  input: fingerprintInputSchema,
  fingerprint: v.string(),
  configDigest: v.string(),
  pythonSource: v.picklist(PYTHON_SOURCES),
  condaArgv: v.array(v.string()),
  introspection: introspectionDocumentSchema,
});
export type Entry = v.InferOutput<typeof entrySchema>;

/** Why an entry is refused, by the first field that fails its schema. */
const ENTRY_PROBLEMS: Record<keyof Entry, string> = {
  format: "it has another format version",
  introspectDigest: "it was made by another introspection script",
  key: "it belongs to another conda or environment",
  input: "its fingerprint inputs are malformed",
  fingerprint: "its digests are malformed",
  configDigest: "its digests are malformed",
  pythonSource: "its interpreter is malformed",
  condaArgv: "its interpreter is malformed",
  introspection: "its introspection is malformed",
};

/**
 * The cached discovery for `key`, or null: a missing, unreadable, oversized, corrupt or
 * foreign entry, one written by another format or introspection script, or one whose
 * fingerprint (conda, plugins, executable, interpreter) or conda configuration files no longer
 * match. Never throws and never runs a process.
 */
export function readCatalogCache(
  options: CatalogCacheOptions,
  key: string,
  /** What the startup snapshot proved moments ago (see ProvenEntry). */
  proven: ProvenEntry | null = null,
): (CachedDiscovery & { stamp: CacheStamp; digest: string; proven: boolean }) | null {
  const file = path.join(options.cacheDir, catalogEntryName(key));
  try {
    const read = readPrivateFile(file, MAX_CATALOG_CACHE_BYTES);
    if (read === null) return null;
    if (!(read instanceof Uint8Array)) return ignored(options, read.problem);
    const digest = sha256Hex(read);
    // The very text this version validated (or wrote) before recording its snapshot needs no
    // schema again, once it is of this format and introspection script: only its facts are
    // decoded and parsed now, conda's parser when first used.
    const lines = entryLines(read);
    const trusted = lines && proven?.entryDigest === digest ? provenEntry(lines) : null;
    const named =
      trusted?.format === ENTRY_KIND.format &&
      trusted.introspectDigest === ENTRY_KIND.introspectDigest;
    const entry = named ? trusted : validEntry(options, read, lines);
    if (entry === null) return null;
    const problem = entryProblem(entry, key, options.executable);
    if (problem) return ignored(options, problem);
    const stamp: CacheStamp = {
      input: entry.input,
      fingerprint: entry.fingerprint,
      rootPrefix: entry.introspection.root_prefix,
      configDigest: entry.configDigest,
    };
    const current = proven !== null && sameStamp(proven.stamp, stamp);
    const changed = current ? null : stampProblem(options, stamp);
    if (changed) return ignored(options, changed);
    markCacheFileUsed(file);
    return {
      python: entry.input.python,
      pythonSource: entry.pythonSource,
      condaArgv: entry.condaArgv,
      introspection: entry.introspection,
      fingerprint: entry.fingerprint,
      stamp,
      digest,
      proven: named,
    };
  } catch (error) {
    return ignored(options, `it could not be read (${errorCode(error) ?? "unexpected error"})`);
  }
}

/** An entry's two lines of JSON (see entryText), as bytes: its facts, then conda's parser. */
interface EntryLines {
  facts: Uint8Array;
  parser: Uint8Array;
}

/** An entry's two lines, or null when its bytes are not two lines, each ended by a break. */
function entryLines(bytes: Uint8Array): EntryLines | null {
  const [facts, parser, end, ...more] = splitLines(bytes);
  if (facts === undefined || parser === undefined || end?.length !== 0 || more.length > 0) {
    return null;
  }
  return { facts, parser };
}

/**
 * The entry a snapshot proved: its facts (the first line) decoded and parsed now, conda's parser
 * (the second, nearly all of the bytes) on first use; null when the first is not UTF-8.
 */
function provenEntry(lines: EntryLines): Entry | null {
  const facts = decodeUtf8(lines.facts);
  if (facts === null) return null;
  const entry = JSON.parse(facts) as Entry;
  let parsed: Pick<IntrospectionDocument, "actions" | "tree"> | null = null;
  const parser = () => {
    if (parsed === null) {
      // The digest proved bytes this version validated as UTF-8 JSON; a throw reaches the reader.
      const text = decodeUtf8(lines.parser);
      if (text === null) throw new SyntaxError("the catalog cache entry's parser is not UTF-8");
      parsed = JSON.parse(text) as Pick<IntrospectionDocument, "actions" | "tree">;
    }
    return parsed;
  };
  Object.defineProperties(entry.introspection, {
    actions: { get: () => parser().actions, enumerable: true },
    tree: { get: () => parser().tree, enumerable: true },
  });
  return entry;
}

/** The document an entry's two lines hold, put back together; throws when not JSON. */
function entryDocument(factsText: string, parserText: string): unknown {
  const facts: unknown = JSON.parse(factsText);
  const parser: unknown = JSON.parse(parserText);
  if (!isJsonObject(facts) || !isJsonObject(facts.introspection) || !isJsonObject(parser)) {
    return facts;
  }
  return { ...facts, introspection: { ...facts.introspection, ...parser } };
}

/** The entry `bytes` hold when they pass the schema, else null (the reason is logged). */
function validEntry(
  options: CatalogCacheOptions,
  bytes: Uint8Array,
  lines: EntryLines | null,
): Entry | null {
  // Each line decoded alone (a line break is never part of a multibyte character); not two
  // lines, the whole text.
  const first = decodeUtf8(lines?.facts ?? bytes);
  const second = lines === null ? "" : decodeUtf8(lines.parser);
  if (first === null || second === null) return ignored(options, "it is not UTF-8 text");
  let document: unknown;
  try {
    document = lines === null ? JSON.parse(first) : entryDocument(first, second);
  } catch {
    return ignored(options, "it is not valid JSON");
  }
  // One JSON object on one line: an entry of the format before this one.
  if (lines === null && isJsonObject(document)) return ignored(options, ENTRY_PROBLEMS.format);
  // valibot's objects take arrays too.
  if (!isJsonObject(document)) return ignored(options, "it is not an object");
  const parsed = v.safeParse(entrySchema, document, { abortEarly: true });
  return parsed.success ? parsed.output : ignored(options, entryIssue(parsed.issues));
}

/** Why an entry fails its schema: the first field that does, and where in the introspection. */
function entryIssue(issues: readonly v.BaseIssue<unknown>[]): string {
  const [issue] = issues;
  const field = issue?.path?.[0]?.key;
  if (field === undefined) return "it is not an object";
  const reason = ENTRY_PROBLEMS[field as keyof Entry];
  if (field !== "introspection") return reason;
  const inner = { ...issue, path: issue?.path?.slice(1) } as v.BaseIssue<unknown>;
  return `${reason} (${describeFirstIssue([inner])})`;
}

/** The first way a well-formed entry is unusable for this key and executable, or null. */
function entryProblem(entry: Entry, key: string, executable: string): string | null {
  if (entry.key !== key) return ENTRY_PROBLEMS.key;
  const { input, condaArgv: argv, introspection } = entry;
  if (input.executable !== executable) return ENTRY_PROBLEMS.input;
  // condaArgv is derived, never free: [executable], or [python, "-m", module] when the
  // executable is the interpreter itself (_CE_M=-m).
  const derived =
    entry.pythonSource === "conda-exe-is-python"
      ? input.python === executable &&
        argv.length === 3 &&
        argv[0] === executable &&
        argv[1] === "-m" &&
        (argv[2] ?? "").length > 0
      : argv.length === 1 && argv[0] === executable;
  if (!derived) return "its conda command line does not match the executable";
  if (
    introspection.conda_version !== input.condaVersion ||
    JSON.stringify(introspection.site_dirs) !== JSON.stringify(input.siteDirs)
  ) {
    return "its fingerprint inputs do not match its introspection";
  }
  return null;
}

function ignored(options: CatalogCacheOptions, reason: string): null {
  options.log?.(`catalog cache: entry ignored, ${reason}`);
  return null;
}

function sameStamp(a: CacheStamp, b: CacheStamp): boolean {
  return (
    a.fingerprint === b.fingerprint &&
    a.rootPrefix === b.rootPrefix &&
    a.configDigest === b.configDigest &&
    a.input.executable === b.input.executable &&
    a.input.python === b.input.python &&
    a.input.condaVersion === b.input.condaVersion &&
    a.input.siteDirs.join("\0") === b.input.siteDirs.join("\0")
  );
}
