import { posix, win32 } from "node:path";

/** What `locateManifest` needs to know about the user; nothing is read from the process. */
export interface LocateManifestInput {
  /** The environment conda runs with (for `CONDA_COMPLETION_CACHE_DIR`, XDG, LOCALAPPDATA). */
  env: Readonly<Record<string, string | undefined>>;
  /** `process.platform` of the machine conda runs on. */
  platform: string;
  /** The user's home directory (absolute). */
  home: string;
  /** What the target's Python said `platformdirs.user_cache_dir("conda")` is, or null. */
  pythonCacheDir?: string | null;
  /** Directory that relative settings resolve against; defaults to `home`. */
  cwd?: string;
}

/** The manifest's file name inside the completion cache directory. */
export const MANIFEST_FILE_NAME = "completion.msgpack";

/**
 * Returns the absolute path of conda-completion's `completion.msgpack`, the way the plugin finds
 * it: `CONDA_COMPLETION_CACHE_DIR` (with `~` and `$VAR` expanded, as the plugin does), else the
 * Python-reported `platformdirs` cache dir + `completion`, else the same platform rules
 * platformdirs applies.
 */
export function locateManifest(input: LocateManifestInput): string {
  const windows = input.platform === "win32";
  const path = windows ? win32 : posix;
  const base = input.cwd ?? input.home;
  const override = readEnv(input.env, "CONDA_COMPLETION_CACHE_DIR", windows);
  if (override !== undefined && override !== "") {
    const expanded = windows
      ? expandWindowsVars(override, input.env)
      : expandPosixVars(override, input.env);
    const dir = path.resolve(base, expandUser(expanded, input.home, windows));
    return path.join(dir, MANIFEST_FILE_NAME);
  }
  if (typeof input.pythonCacheDir === "string" && input.pythonCacheDir !== "") {
    return path.join(path.resolve(base, input.pythonCacheDir), "completion", MANIFEST_FILE_NAME);
  }
  return path.join(platformCacheDir(input, base), "completion", MANIFEST_FILE_NAME);
}

/** `platformdirs.user_cache_dir("conda")` (appauthor defaults to the app name on Windows). */
function platformCacheDir(input: LocateManifestInput, base: string): string {
  if (input.platform === "win32") {
    const local = readEnv(input.env, "LOCALAPPDATA", true);
    const root =
      local !== undefined && local.trim() !== ""
        ? win32.resolve(base, local)
        : win32.join(input.home, "AppData", "Local");
    return win32.join(root, "conda", "conda", "Cache");
  }
  if (input.platform === "darwin") return posix.join(input.home, "Library", "Caches", "conda");
  // platformdirs takes XDG_CACHE_HOME as given unless it is blank (relative values included).
  const xdg = readEnv(input.env, "XDG_CACHE_HOME", false);
  const root =
    xdg !== undefined && xdg.trim() !== ""
      ? posix.resolve(base, xdg)
      : posix.join(input.home, ".cache");
  return posix.join(root, "conda");
}

/** Environment lookup; Windows variable names are case-insensitive. */
function readEnv(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  windows: boolean,
): string | undefined {
  if (Object.hasOwn(env, name)) return env[name];
  if (!windows) return undefined;
  const upper = name.toUpperCase();
  for (const key of Object.keys(env)) if (key.toUpperCase() === upper) return env[key];
  return undefined;
}

/** Python's `posixpath.expandvars`: `$name` and `${name}`; unknown variables stay as written. */
function expandPosixVars(text: string, env: Readonly<Record<string, string | undefined>>): string {
  return text.replace(/\$([A-Za-z0-9_]+|\{[^}]*\})/g, (match, raw: string) => {
    const name = raw.startsWith("{") ? raw.slice(1, -1) : raw;
    const value = readEnv(env, name, false);
    return value ?? match;
  });
}

/**
 * Python's `ntpath.expandvars`: `%name%`, `${name}`, `$name`; `%%` and `$$` are literal; text in
 * single quotes is kept; unknown variables stay as written.
 */
function expandWindowsVars(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text.charAt(i);
    const next = text.charAt(i + 1);
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return out + text.slice(i);
      out += text.slice(i, end + 1);
      i = end + 1;
    } else if (c === "%" && next === "%") {
      out += "%";
      i += 2;
    } else if (c === "%") {
      const end = text.indexOf("%", i + 1);
      if (end < 0) return out + text.slice(i);
      const name = text.slice(i + 1, end);
      out += readEnv(env, name, true) ?? `%${name}%`;
      i = end + 1;
    } else if (c === "$" && next === "$") {
      out += "$";
      i += 2;
    } else if (c === "$" && next === "{") {
      const end = text.indexOf("}", i + 2);
      if (end < 0) return out + text.slice(i);
      const name = text.slice(i + 2, end);
      out += readEnv(env, name, true) ?? `\${${name}}`;
      i = end + 1;
    } else if (c === "$") {
      const name = /^[A-Za-z0-9_-]*/.exec(text.slice(i + 1))?.[0] ?? "";
      out += name === "" ? "$" : (readEnv(env, name, true) ?? `$${name}`);
      i += 1 + name.length;
    } else {
      out += c;
      i += 1;
    }
  }
  return out;
}

/** `~` and `~/...` become the home directory; `~user` is left as written. */
function expandUser(text: string, home: string, windows: boolean): string {
  if (!text.startsWith("~")) return text;
  const separators = windows ? /[/\\]/ : /\//;
  const rest = text.slice(1);
  if (rest !== "" && !separators.test(rest.charAt(0))) return text;
  const expanded = home.replace(windows ? /[/\\]+$/ : /\/+$/, "") + rest;
  return expanded === "" ? home : expanded;
}
