import { compareText, sha256Hex } from "../values.ts";

/** MCP's tool name rule (SEP-986). */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

const MAX_LENGTH = 64;

/** `["env", "config", "vars", "set"]` → `conda_env_config_vars_set`, before collision handling. */
function baseName(path: string[]): string {
  const joined = ["conda", ...path].join("_").replace(/[^A-Za-z0-9_-]/g, "_");
  if (joined.length <= MAX_LENGTH) return joined;
  // Keep names unique and stable when a plugin's path is very long: cut and add a short digest.
  const digest = sha256Hex(path.join(" ")).slice(0, 8);
  return `${joined.slice(0, MAX_LENGTH - 9)}_${digest}`;
}

/**
 * Gives each command path a valid, unique MCP tool name. Collisions (`foo-bar` and `foo_bar`
 * after sanitising) are resolved deterministically: paths are taken in sorted order and later
 * ones get `_2`, `_3`, ... whatever order the tree listed them in.
 */
export function assignToolNames(paths: string[][]): Map<string, string> {
  const byKey = new Map<string, string>();
  const taken = new Set<string>();
  const sorted = [...paths].sort((a, b) => compareText(a.join(" "), b.join(" ")));
  for (const path of sorted) {
    const base = baseName(path);
    let name = base;
    for (let n = 2; taken.has(name); n++) {
      const suffix = `_${n}`;
      name = `${base.slice(0, MAX_LENGTH - suffix.length)}${suffix}`;
    }
    taken.add(name);
    byKey.set(path.join(" "), name);
  }
  return byKey;
}
