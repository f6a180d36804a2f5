import {
  expandParser,
  type RawParser,
  type RawPluginDistribution,
  type RawPreParser,
} from "../introspection-payload.ts";
import {
  type CachedDiscovery,
  type CacheStamp,
  type CatalogCacheOptions,
  cacheStamp,
  catalogCacheKey,
} from "./cache-key.ts";
import { type ProvenEntry, readCatalogCache } from "./catalog-cache.ts";
import {
  computeFingerprint,
  readSiteFacts,
  type SiteFacts,
  scanCondaEntryPoints,
  watchFingerprint,
} from "./compute-fingerprint.ts";
import { findConda, type Which } from "./find-conda.ts";
import type { IntrospectOptions } from "./introspect.ts";
import type { PythonSource } from "./resolve-python.ts";
import type { StartedIntrospection } from "./start-introspection.ts";

/**
 * What discovery learned about the user's conda installation, for every later stage: nothing
 * after discovery asks conda's Python for these again.
 */
export interface Installation {
  /** The conda executable that will be run. */
  executable: string;
  /** The interpreter that runs it. */
  python: string;
  /** argv prefix that runs conda: `[executable]`, or `[python, "-m", "conda"]` in dev setups. */
  condaArgv: string[];
  condaVersion: string;
  /** conda's root prefix: the base environment. */
  rootPrefix: string;
  /** conda's `envs_dirs`, where named environments live. */
  envsDirs: string[];
  /** The target's `sys.path` directories, where plugin distributions are found. */
  siteDirs: string[];
  /** Distributions registering conda plugins, as introspected. */
  plugins: RawPluginDistribution[];
  /** conda-completion's cache folder as the target's platformdirs names it, or null. */
  completionCacheDir: string | null;
  /** Changes when conda, its interpreter or its plugins change; as of discovery. */
  fingerprint: string;
  /** The fingerprint now (file-system reads only, no Python): after a call, has conda changed? */
  currentFingerprint: () => string;
  /** conda entry-point names registered now (file-system reads only). */
  currentPluginNames: () => string[];
  /** Whether the target's Python described conda just now or a still-valid cache entry did. */
  source: "introspection" | "cache";
}

/** conda as discovery found it: its complete parser tree and its installation. */
export interface DiscoveredConda {
  /** conda's parser tree, put together when first read (see discoveredConda). */
  readonly tree: RawParser;
  /** conda's global pre-parser, whose options are read anywhere in argv; null when none. */
  preParser: RawPreParser | null;
  installation: Installation;
}

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
  /** Called once the target's Python is introspecting (never on a cache hit). */
  onPythonStarted?: () => void;
  /** Called with each top-level command the target's Python describes (never on a cache hit). */
  onCommand?: IntrospectOptions["onCommand"];
  /**
   * The introspection this start set going first thing, when it was sure to introspect (no
   * cache, or no entry): its conda is the one discovered, and no cache entry is read.
   */
  started?: StartedIntrospection | null;
}

/** The conda a start found and its catalog cache key, computed once per start. */
export interface FoundConda {
  executable: string;
  catalogKey: string;
  /** What this start's startup snapshot has just proven of the catalog entry, if anything. */
  proven?: ProvenEntry | null;
}

/** conda as discovered, and how: what the start-up needs beyond the tree and installation. */
export interface Discovery extends DiscoveredConda {
  /** How the interpreter was found. */
  pythonSource: PythonSource;
  /** Wall time spent in the target's Python; 0 when the catalog came from the cache. */
  pythonMs: number;
  /**
   * The cache entry's key, the stamp that proves it current, `store()`, and whether it is the
   * very entry the startup snapshot named (`proven`); null with `--no-cache`.
   */
  cache: {
    key: string;
    stamp: CacheStamp;
    /**
     * Resolves with the sha256 of the entry's text as stored: the text read, or a fresh entry's,
     * written at the first call so that the caller keeps it off its way to answering (null when
     * it could not be written; never rejects).
     */
    store: () => Promise<string | null>;
    proven: boolean;
  } | null;
}

/**
 * Find conda and its Python, introspect its parser tree and fingerprint the installation. With
 * a cacheDir, an entry whose fingerprint and configuration still match is used instead and no
 * process is started at all; otherwise the fresh result is stored for the next start.
 */
export async function discover(options: DiscoverOptions): Promise<Discovery> {
  const env = { ...options.env };
  const { platform } = options;
  const which = options.which ? { which: options.which } : {};
  const executable =
    options.started?.executable ??
    options.found?.executable ??
    findConda({ explicitPath: options.explicitPath ?? null, env, platform, ...which });
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
  const key = cache ? (options.found?.catalogKey ?? catalogCacheKey(cache)) : null;
  if (cache && key && !options.started) {
    const cached = readCatalogCache(cache, key, options.found?.proven ?? null);
    if (cached) {
      const { stamp, digest, proven, ...restored } = cached;
      return discovered(executable, restored, "cache", 0, {
        key,
        stamp,
        store: () => Promise.resolve(digest),
        proven,
      });
    }
  }

  const { fresh, pythonMs } = await introspectFresh(executable, options, env);
  if (!cache || !key) return discovered(executable, fresh, "introspection", pythonMs, null);
  const stamp = cacheStamp(cache, fresh);
  let stored: Promise<string | null> | null = null;
  return discovered(executable, fresh, "introspection", pythonMs, {
    key,
    stamp,
    store: () => {
      // The writer (with node:fs/promises) loads only once there is an entry to write.
      stored ??= import("./write-cache-file.ts").then(
        ({ writeCatalogCache }) => writeCatalogCache(cache, key, fresh, stamp),
        (error) => {
          cache.log?.(`catalog cache: not written (${String(error)})`);
          return null;
        },
      );
      return stored;
    },
    proven: false,
  });
}

/** What conda's own Python says about it now, and how long that took. */
async function introspectFresh(
  executable: string,
  options: DiscoverOptions,
  env: Record<string, string | undefined>,
): Promise<{ fresh: CachedDiscovery; pythonMs: number }> {
  const { platform, timeoutMs } = options;
  const which = options.which ? { which: options.which } : {};
  // The embedded script loads only for a start that introspects.
  const started =
    options.started ??
    (await import("./start-introspection.ts")).startIntrospection(executable, {
      env,
      platform,
      timeoutMs,
      ...which,
    });
  const { resolved, spawned } = await started.running;
  options.onPythonStarted?.();
  // The document reader and its schemas load only for a start that introspects, once Python runs.
  const { introspect } = await import("./introspect.ts");
  // What the site folders hold is read while Python builds conda's parser.
  const early: { siteDirs: string[]; site: SiteFacts }[] = [];
  const introspection = await introspect(spawned, {
    timeoutMs,
    onCommand: options.onCommand,
    onSiteDirs: (siteDirs) => early.push({ siteDirs, site: readSiteFacts(siteDirs) }),
  });
  const pythonMs = resolved.pythonMs + performance.now() - spawned.spawnedAt;
  const siteDirs = introspection.site_dirs;
  const site = early.find((read) => sameList(read.siteDirs, siteDirs))?.site;
  const fresh: CachedDiscovery = {
    python: resolved.python,
    pythonSource: resolved.source,
    condaArgv: resolved.condaArgv,
    introspection,
    fingerprint: computeFingerprint(
      { executable, python: resolved.python, siteDirs, condaVersion: introspection.conda_version },
      site,
    ),
  };
  return { fresh, pythonMs };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

/** A discovery, fresh or restored from the cache. */
function discovered(
  executable: string,
  found: CachedDiscovery,
  source: Installation["source"],
  pythonMs: number,
  cache: Discovery["cache"],
): Discovery {
  // Assigned onto it, not spread: a spread would read the tree that it puts together lazily.
  return Object.assign(discoveredConda(executable, found, source), {
    pythonSource: found.pythonSource,
    pythonMs,
    cache,
  });
}

/**
 * The tree and installation a discovery describes, fresh or restored from the cache. The tree
 * is put together when first read: a warm start whose catalog the snapshot recorded needs it
 * only for conda://capabilities.
 */
export function discoveredConda(
  executable: string,
  found: CachedDiscovery,
  source: Installation["source"],
): DiscoveredConda {
  const document = found.introspection;
  const { python } = found;
  const siteDirs = document.site_dirs;
  const condaVersion = document.conda_version;
  let tree: RawParser | null = null;
  return {
    get tree() {
      tree ??= expandParser(document.tree, document.actions);
      return tree;
    },
    preParser: document.pre_parser,
    installation: {
      executable,
      python,
      condaArgv: found.condaArgv,
      condaVersion,
      rootPrefix: document.root_prefix,
      envsDirs: document.envs_dirs,
      siteDirs,
      plugins: document.external_plugins,
      completionCacheDir: document.completion?.cache_dir ?? null,
      fingerprint: found.fingerprint,
      currentFingerprint: watchFingerprint({ executable, python, siteDirs, condaVersion }),
      currentPluginNames: () => scanCondaEntryPoints(siteDirs).flatMap((d) => d.entryPointNames),
      source,
    },
  };
}
