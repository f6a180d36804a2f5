import type { RawParser, RawPluginDistribution, RawPreParser } from "./introspection-payload.ts";

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
