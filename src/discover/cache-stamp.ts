import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { compareText } from "../compare-text.ts";
import { sha256Hex } from "../sha256-hex.ts";
import type { CatalogCacheOptions } from "./catalog-cache-key.ts";
import type { CachedDiscovery } from "./catalog-cache.ts";
import { computeFingerprint, fingerprintInputSchema } from "./compute-fingerprint.ts";

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
