import { lutimesSync, readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { compareText } from "../compare-text.ts";
import { describeFirstIssue } from "../describe-first-issue.ts";
import { errorCode } from "../error-code.ts";
import {
  type IntrospectionDocument,
  introspectionDocumentSchema,
} from "../introspection-payload.ts";
import { isJsonObject } from "../is-json-object.ts";
import { readHead } from "../read-head.ts";
import { sha256Hex } from "../sha256-hex.ts";
import { computeFingerprint, fingerprintInputSchema } from "./compute-fingerprint.ts";
import { INTROSPECT_SOURCE } from "./introspect-source.ts";
import { parseShebang } from "./parse-shebang.ts";
import { readPrivateFile, writePrivateFile } from "./private-cache-file.ts";
import { PYTHON_SOURCES, type PythonSource } from "./python-source.ts";

/** Where the cache lives and what an entry is for: one conda executable under one environment. */
export interface CatalogCacheOptions {
  cacheDir: string;
  /** The conda executable as findConda returned it. */
  executable: string;
  /** The environment conda runs with; only digests of it are stored. */
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  /** Stands for `~` in conda's configuration search path when env has no HOME / USERPROFILE. */
  home?: string | undefined;
  /** Receives one line when an entry is ignored or cannot be written. */
  log?: ((line: string) => void) | undefined;
}

/** What an entry restores: the results of discovery that otherwise need the target's Python. */
export interface CachedDiscovery {
  python: string;
  pythonSource: PythonSource;
  condaArgv: string[];
  introspection: IntrospectionDocument;
  fingerprint: string;
}

/** Entries larger than this are ignored unread (a real conda's tree is about 1 MiB). */
export const MAX_CATALOG_CACHE_BYTES = 64 * 1024 * 1024;

const FORMAT = 1;
const INTROSPECT_DIGEST = sha256Hex(INTROSPECT_SOURCE);
/** What makes an entry of this program's kind: its format and the introspection script's digest. */
export const ENTRY_KIND = { format: FORMAT, introspectDigest: INTROSPECT_DIGEST } as const;
// Variables that change which conda runs, with which Python and plugins, how it is configured,
// or what paths its parser embeds: conda reads every CONDA_* name as a setting, CONDA_PREFIX
// appears in help texts, PYTHON* variables move sys.path, the homes and XDG folders hold
// .condarc files and conda-completion's cache.
const ENV_PREFIXES = ["CONDA", "_CE_", "PYTHON"];
const ENV_NAMES: ReadonlySet<string> = new Set([
  "HOME",
  "USERPROFILE",
  "HOMEDRIVE",
  "HOMEPATH",
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "LOCALAPPDATA",
]);
const HEAD_BYTES = 4096;

/**
 * What proves that something cached from one discovery still describes the installed conda:
 * the fingerprint (conda, plugins, executable, interpreter) and the digest of conda's
 * configuration files, with the inputs that recompute them.
 */
export const cacheStampSchema = v.object({
  input: fingerprintInputSchema,
  fingerprint: v.string(),
  rootPrefix: v.string(),
  configDigest: v.string(),
});
export type CacheStamp = v.InferOutput<typeof cacheStampSchema>;

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
  format: v.literal(FORMAT),
  introspectDigest: v.literal(INTROSPECT_DIGEST),
  key: v.string(),
  input: fingerprintInputSchema,
  fingerprint: v.string(),
  configDigest: v.string(),
  pythonSource: v.picklist(PYTHON_SOURCES),
  condaArgv: v.array(v.string()),
  introspection: introspectionDocumentSchema,
});
type Entry = v.InferOutput<typeof entrySchema>;

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
 * The name of the entry for a conda executable under an environment: a sha256 of the
 * executable as found, its real path, and the environment values that change what conda
 * does (every `CONDA*`, `_CE_*` and `PYTHON*` variable, the home and XDG folders, and PATH only
 * when the script's shebang is `/usr/bin/env python`, since then PATH picks the interpreter).
 * File-system reads only; compute it before introspecting so the entry describes what ran.
 */
export function catalogCacheKey(options: CatalogCacheOptions): string {
  const { executable, env, platform } = options;
  const variables: [string, string][] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    // Windows environment names are case-insensitive.
    const key = platform === "win32" ? name.toUpperCase() : name;
    if (ENV_NAMES.has(key) || ENV_PREFIXES.some((prefix) => key.startsWith(prefix))) {
      variables.push([key, value]);
    }
  }
  variables.sort(([a, av], [b, bv]) => compareText(a, b) || compareText(av, bv));
  const head = readHead(executable, HEAD_BYTES);
  const envShebang = head !== null && parseShebang(new TextDecoder().decode(head))?.kind === "env";
  return sha256Hex(
    JSON.stringify({
      executable,
      real: realPathOrNull(executable),
      platform,
      variables,
      path: envShebang ? (env.PATH ?? null) : null,
    }),
  );
}

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
  const file = path.join(options.cacheDir, `${key}.json`);
  try {
    const read = readPrivateFile(file, MAX_CATALOG_CACHE_BYTES);
    if (read === null) return null;
    if (typeof read !== "string") return ignored(options, read.problem);
    const digest = sha256Hex(read);
    // The very text this version validated (or wrote) before recording its snapshot needs no
    // schema again, once it is of this format and introspection script.
    const trusted = proven?.entryDigest === digest ? (JSON.parse(read) as Entry) : null;
    const named = trusted?.format === FORMAT && trusted.introspectDigest === INTROSPECT_DIGEST;
    const entry = named ? trusted : validEntry(options, read);
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
    // Pruning goes by mtime: mark the entry as used (best effort, a read-only cache is fine).
    // Synchronously: one system call, where awaiting the thread pool left a warm start idle.
    try {
      const now = new Date();
      lutimesSync(file, now, now);
    } catch {}
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

/** The entry `text` holds when it passes the schema, else null (the reason is logged). */
function validEntry(options: CatalogCacheOptions, text: string): Entry | null {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return ignored(options, "it is not valid JSON");
  }
  // valibot's objects take arrays too.
  if (!isJsonObject(document)) return ignored(options, "it is not an object");
  const parsed = v.safeParse(entrySchema, document, { abortEarly: true });
  return parsed.success ? parsed.output : ignored(options, entryIssue(parsed.issues));
}

/** The stamp of a discovery made just now: its fingerprint and conda's configuration files. */
export function cacheStamp(options: CatalogCacheOptions, discovery: CachedDiscovery): CacheStamp {
  return {
    input: {
      executable: options.executable,
      python: discovery.python,
      siteDirs: discovery.introspection.site_dirs,
      condaVersion: discovery.introspection.conda_version,
    },
    fingerprint: discovery.fingerprint,
    rootPrefix: discovery.introspection.root_prefix,
    configDigest: condaConfigDigest(options, discovery.introspection.root_prefix),
  };
}

/**
 * Why a stamp no longer holds (conda, its plugins or interpreter changed, or its configuration
 * files did), or null when it still does. File-system reads only, no process.
 */
export function stampProblem(options: CatalogCacheOptions, stamp: CacheStamp): string | null {
  if (computeFingerprint(stamp.input) !== stamp.fingerprint)
    return "conda, its plugins or its interpreter changed";
  if (condaConfigDigest(options, stamp.rootPrefix) !== stamp.configDigest)
    return "conda's configuration files changed";
  return null;
}

/**
 * Store a discovery and its stamp under `key` (see writePrivateFile: atomic, private, stale
 * files pruned), resolving with the sha256 of the entry's text, or null when it was not stored:
 * failures are logged, never thrown.
 */
export async function writeCatalogCache(
  options: CatalogCacheOptions,
  key: string,
  discovery: CachedDiscovery,
  stamp: CacheStamp,
): Promise<string | null> {
  try {
    const entry: Entry = {
      format: FORMAT,
      introspectDigest: INTROSPECT_DIGEST,
      key,
      input: stamp.input,
      fingerprint: stamp.fingerprint,
      configDigest: stamp.configDigest,
      pythonSource: discovery.pythonSource,
      condaArgv: discovery.condaArgv,
      introspection: discovery.introspection,
    };
    const text = JSON.stringify(entry);
    if (Buffer.byteLength(text) > MAX_CATALOG_CACHE_BYTES) {
      options.log?.("catalog cache: not written, the catalog is larger than an entry may be");
      return null;
    }
    await writePrivateFile(options.cacheDir, `${key}.json`, text);
    return sha256Hex(text);
  } catch (error) {
    options.log?.(`catalog cache: not written (${errorCode(error) ?? "unexpected error"})`);
    return null;
  }
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

/**
 * A digest of conda's configuration search path (conda.base.constants.SEARCH_PATH): for each
 * candidate `.condarc` file its size and mtime, for each `condarc.d` folder those of its YAML
 * files. `.condarc` can disable plugins and move envs_dirs, which the introspection reports.
 */
function condaConfigDigest(options: CatalogCacheOptions, rootPrefix: string): string {
  const { env, platform } = options;
  const paths = platform === "win32" ? path.win32 : path.posix;
  const home =
    (platform === "win32"
      ? (env.USERPROFILE ?? (env.HOMEDRIVE && env.HOMEPATH ? env.HOMEDRIVE + env.HOMEPATH : null))
      : env.HOME) ||
    options.home ||
    null;
  const folders: string[] =
    platform === "win32" ? ["C:/ProgramData/conda"] : ["/etc/conda", "/var/lib/conda"];
  folders.push(rootPrefix);
  if (env.XDG_CONFIG_HOME) folders.push(paths.join(env.XDG_CONFIG_HOME, "conda"));
  if (home) folders.push(paths.join(home, ".config", "conda"), paths.join(home, ".conda"));
  const candidates = folders.flatMap((folder) =>
    [".condarc", "condarc", "condarc.d"].map((name) => paths.join(folder, name)),
  );
  if (home) candidates.push(paths.join(home, ".condarc"));
  if (env.CONDA_PREFIX) {
    for (const name of [".condarc", "condarc", "condarc.d"]) {
      candidates.push(paths.join(env.CONDA_PREFIX, name));
    }
  }
  if (env.CONDARC) candidates.push(env.CONDARC);
  const identities = candidates.map(configIdentity);
  return sha256Hex(JSON.stringify(candidates.map((candidate, i) => [candidate, identities[i]])));
}

/** `size:mtime` of a file, the same of each YAML file of a folder, or null when absent. */
function configIdentity(candidate: string): unknown {
  try {
    const info = statSync(candidate, { throwIfNoEntry: false });
    if (!info) return null;
    if (!info.isDirectory()) return `${info.size}:${info.mtimeMs}`;
    const names = readdirSync(candidate)
      .filter((n) => /\.ya?ml$/i.test(n))
      .sort(compareText);
    return names.map((name) => {
      const file = statSync(path.join(candidate, name), { throwIfNoEntry: false });
      return [name, file ? `${file.size}:${file.mtimeMs}` : null];
    });
  } catch {
    return null;
  }
}

function realPathOrNull(file: string): string | null {
  try {
    return realpathSync(file);
  } catch {
    return null;
  }
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
