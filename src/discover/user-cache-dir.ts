import path from "node:path";

/** Inputs of {@link userCacheDir}: the program's environment, platform and home folder. */
export interface UserCacheDirInput {
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  home: string;
}

const APP = "conda-mcp";

/**
 * conda-mcp's per-user cache folder, as platformdirs places it: `$XDG_CACHE_HOME/conda-mcp`
 * (only when absolute) or `~/.cache/conda-mcp` on Linux and other Unixes,
 * `~/Library/Caches/conda-mcp` on macOS, `%LOCALAPPDATA%\conda-mcp\Cache` (else
 * `~\AppData\Local\conda-mcp\Cache`) on Windows; null when no absolute base is known.
 */
export function userCacheDir({ env, platform, home }: UserCacheDirInput): string | null {
  if (platform === "win32") {
    const { isAbsolute, join } = path.win32;
    const local = env.LOCALAPPDATA;
    if (local && isAbsolute(local)) return join(local, APP, "Cache");
    return home && isAbsolute(home) ? join(home, "AppData", "Local", APP, "Cache") : null;
  }
  const { isAbsolute, join } = path.posix;
  if (platform === "darwin") {
    return home && isAbsolute(home) ? join(home, "Library", "Caches", APP) : null;
  }
  // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, APP);
  return home && isAbsolute(home) ? join(home, ".cache", APP) : null;
}
