import { realpathSync } from "node:fs";
import { compareText } from "../compare-text.ts";
import { readHead } from "../read-head.ts";
import { sha256Hex } from "../sha256-hex.ts";
import { parseShebang } from "./parse-shebang.ts";

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
