import type { IntrospectionResult } from "../introspection-payload.ts";
import {
  type CacheStamp,
  type CatalogCacheOptions,
  cacheStamp,
  catalogCacheKey,
  readCatalogCache,
  writeCatalogCache,
} from "./catalog-cache.ts";
import { computeFingerprint } from "./compute-fingerprint.ts";
import { findConda, type Which } from "./find-conda.ts";
import { introspect } from "./introspect.ts";
import type { PythonSource } from "./python-source.ts";
import { resolvePython } from "./resolve-python.ts";

/** Options of {@link discover}. */
export interface DiscoverOptions {
  /** `--conda PATH`, or null to try CONDA_EXE and then PATH. */
  explicitPath?: string | null;
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  /** Deadline for each call into the target's Python. */
  timeoutMs: number;
  /** Folder of the catalog cache (see userCacheDir), or null (`--no-cache`): never read or write. */
  cacheDir: string | null;
  /** The user's home; stands for `~` in conda's configuration search path when env has no HOME. */
  home?: string;
  /** Receives one line when a cache entry is ignored or cannot be written. */
  log?: (line: string) => void;
  which?: Which;
  /** The conda and catalog cache key this start already found (for its startup snapshot). */
  found?: FoundConda | null;
}

/** The conda a start found and its catalog cache key, computed once per start. */
export interface FoundConda {
  executable: string;
  catalogKey: string;
}

/** Everything later stages need to know about the user's conda. */
export interface Discovery {
  /** The conda executable that will be run. */
  executable: string;
  /** The interpreter that runs it. */
  python: string;
  pythonSource: PythonSource;
  /** argv prefix that runs conda: `[executable]`, or `[python, "-m", "conda"]` in dev setups. */
  condaArgv: string[];
  introspection: IntrospectionResult;
  /** Changes when conda, its interpreter or its plugins change (see computeFingerprint). */
  fingerprint: string;
  /** Wall time spent in the target's Python; 0 when the catalog came from the cache. */
  pythonMs: number;
  /** Whether the target's Python described conda just now or a still-valid cache entry did. */
  source: "introspection" | "cache";
  /** The cache entry's key and the stamp that proves it current; null with `--no-cache`. */
  cache: { key: string; stamp: CacheStamp } | null;
}

/**
 * Find conda and its Python, introspect its parser tree and fingerprint the installation. With
 * a cacheDir, an entry whose fingerprint and configuration still match is used instead and no
 * process is started at all; otherwise the fresh result is stored for the next start.
 */
export async function discover(options: DiscoverOptions): Promise<Discovery> {
  const env = { ...options.env };
  const { platform, timeoutMs } = options;
  const found = options.found ?? null;
  const executable =
    found?.executable ??
    findConda({
      explicitPath: options.explicitPath ?? null,
      env,
      platform,
      ...(options.which ? { which: options.which } : {}),
    });

  const cache: CatalogCacheOptions | null = options.cacheDir
    ? {
        cacheDir: options.cacheDir,
        executable,
        env,
        platform,
        home: options.home,
        log: options.log,
      }
    : null;
  // The key is taken before introspecting, so an entry never describes a later executable.
  const key = cache ? (found?.catalogKey ?? catalogCacheKey(cache)) : null;
  if (cache && key) {
    const cached = await readCatalogCache(cache, key);
    if (cached) {
      const { stamp, ...restored } = cached;
      return { executable, ...restored, pythonMs: 0, source: "cache", cache: { key, stamp } };
    }
  }

  const resolved = await resolvePython(executable, {
    env,
    platform,
    timeoutMs,
    ...(options.which ? { which: options.which } : {}),
  });
  const started = performance.now();
  const introspection = await introspect(resolved.python, { env, platform, timeoutMs });
  const introspectMs = performance.now() - started;
  const fingerprint = computeFingerprint({
    executable,
    python: resolved.python,
    siteDirs: introspection.site_dirs,
    condaVersion: introspection.conda_version,
  });
  const discovered = {
    python: resolved.python,
    pythonSource: resolved.source,
    condaArgv: resolved.condaArgv,
    introspection,
    fingerprint,
  };
  const base = {
    executable,
    ...discovered,
    pythonMs: resolved.pythonMs + introspectMs,
    source: "introspection" as const,
  };
  if (!cache || !key) return { ...base, cache: null };
  const stamp = cacheStamp(cache, discovered);
  await writeCatalogCache(cache, key, discovered, stamp);
  return { ...base, cache: { key, stamp } };
}
