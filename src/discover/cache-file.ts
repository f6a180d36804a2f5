import { closeSync, constants, fstatSync, lutimesSync, openSync, readSync } from "node:fs";
import path from "node:path";
import { errorCode } from "../values.ts";

/**
 * The bytes of a cache file, null when there is none, or why it is not usable: a link, not a
 * regular file, not this user's private file, or larger than `maxBytes`. Cache files decide
 * what is run, so only this user's files that others cannot write are trusted. Bytes, not text:
 * a warm start decodes only the lines it needs (see decodeUtf8). Synchronous: it is on the
 * warm-start path, where a thread-pool round trip per call costs more.
 */
export function readPrivateFile(
  file: string,
  maxBytes: number,
): Uint8Array | { problem: string } | null {
  // O_NOFOLLOW: a cache file is never a link; O_NONBLOCK: a FIFO planted there cannot hang us.
  const flags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
  let fd: number;
  try {
    fd = openSync(file, flags);
  } catch (error) {
    const code = errorCode(error);
    // No file, or no cache folder yet (ENOTDIR: a file stands where a folder would be).
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    return { problem: code === "ELOOP" ? "it is a link" : `it could not be opened (${code})` };
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return { problem: "it is not a regular file" };
    const uid = process.getuid?.();
    if (uid !== undefined && (info.uid !== uid || (info.mode & 0o022) !== 0)) {
      return { problem: "it is not a private file of this user" };
    }
    if (info.size > maxBytes) return { problem: "it is too large" };
    const buffer = Buffer.alloc(info.size);
    let filled = 0;
    while (filled < buffer.length) {
      const bytesRead = readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/**
 * Marks a cache file as used now: writePrivateFile prunes the files unused for 30 days by their
 * mtime. Best effort (a read-only cache is fine) and synchronous: one system call, where
 * awaiting the thread pool left a warm start idle, and node:fs/promises stays unloaded.
 */
export function markCacheFileUsed(file: string): void {
  try {
    const now = new Date();
    lutimesSync(file, now, now);
  } catch {}
}

/** `bytes` as text, every one of them (a leading BOM too), or null when they are not UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

const LINE_FEED = 0x0a;

/**
 * The lines of a file's bytes, each without its line break, as views of `bytes` (no copies):
 * a file that ends with a line break ends with an empty line, as String.split gives.
 */
export function splitLines(bytes: Uint8Array): Uint8Array[] {
  const lines: Uint8Array[] = [];
  let start = 0;
  for (let end = bytes.indexOf(LINE_FEED); end >= 0; end = bytes.indexOf(LINE_FEED, start)) {
    lines.push(bytes.subarray(start, end));
    start = end + 1;
  }
  lines.push(bytes.subarray(start));
  return lines;
}

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

/** The file name, inside the cache folder, of the catalog cache entry filed under `key`. */
export function catalogEntryName(key: string): string {
  return `${key}.json`;
}
