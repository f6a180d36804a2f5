import { readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import * as v from "valibot";
import type { IntrospectionDocument } from "../introspection-payload.ts";
import { compareText, sha256Hex } from "../values.ts";
import { computeFingerprint, fingerprintInputSchema } from "./compute-fingerprint.ts";
import { parseShebang, readHead } from "./find-conda.ts";
import type { PythonSource } from "./resolve-python.ts";

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

function realPathOrNull(file: string): string | null {
  try {
    return realpathSync(file);
  } catch {
    return null;
  }
}

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

/**
 * The sha256 of introspect.py, written here rather than computed so that a warm start, which
 * names its snapshot by it, need not load the script; test/discover/cache-key.test.ts fails,
 * naming the new value, when the script changes.
 */
const INTROSPECT_DIGEST: string =
  "9206624e2665c4b9e9e7f75dcd449640cdb3185ddc135d9c7eb9509aae25b7ea";

/** What makes a catalog cache entry this program's kind: its format and the script that made it. */
export const ENTRY_KIND = { format: 2, introspectDigest: INTROSPECT_DIGEST } as const;
