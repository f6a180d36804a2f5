import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { mkdir, readdir, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { errorCode } from "../error-code.ts";
import { randomHex } from "../random-hex.ts";
import { writeFileAtomic } from "../write-file-atomic.ts";

/** Cache files: a catalog entry (`<sha256>.json`) or a startup snapshot (`<sha256>.snapshot.json`). */
const CACHE_FILE_NAME = /^[0-9a-f]{64}(\.snapshot)?\.json$/;
const TEMP_NAME = /^[0-9a-f]{64}(\.snapshot)?\.\d+\.[0-9a-f]+\.tmp$/;
const STALE_TEMP_MS = 60 * 60 * 1000;
const STALE_FILE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * The text of a cache file, null when there is none, or why it is not usable: a link, not a
 * regular file, not this user's private file, larger than `maxBytes`, or not UTF-8. Cache files
 * decide what is run, so only this user's files that others cannot write are trusted.
 * Synchronous: it is on the warm-start path, where a thread-pool round trip per call costs more.
 */
export function readPrivateFile(
  file: string,
  maxBytes: number,
): string | { problem: string } | null {
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
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(buffer.subarray(0, filled));
    } catch {
      return { problem: "it is not UTF-8 text" };
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `text` as `<cacheDir>/<name>`: to a private temporary file (mode 0600) in the cache
 * folder (created with mode 0700), synced, then renamed over the target, so readers and
 * concurrent writers only ever see whole files. Temporary files older than an hour and cache
 * files unused for 30 days are removed on the way. Throws what the file system throws.
 */
export async function writePrivateFile(
  cacheDir: string,
  name: string,
  text: string,
): Promise<void> {
  await mkdir(cacheDir, { recursive: true, mode: 0o700 });
  await removeStaleFiles(cacheDir);
  const stem = name.replace(/\.json$/, "");
  // The temporary name says whose it is, so that stale ones can be pruned (TEMP_NAME).
  const temp = path.join(cacheDir, `${stem}.${process.pid}.${randomHex(6)}.tmp`);
  await writeFileAtomic(path.join(cacheDir, name), text, 0o600, temp);
}

async function removeStaleFiles(cacheDir: string): Promise<void> {
  const now = Date.now();
  let names: string[];
  try {
    names = await readdir(cacheDir);
  } catch {
    return;
  }
  await Promise.all(
    names.map(async (name) => {
      const maxAge = TEMP_NAME.test(name)
        ? STALE_TEMP_MS
        : CACHE_FILE_NAME.test(name)
          ? STALE_FILE_MS
          : null;
      if (maxAge === null) return;
      const file = path.join(cacheDir, name);
      try {
        if (now - (await stat(file)).mtimeMs > maxAge) await unlink(file);
      } catch {
        // Another writer renamed or removed it first.
      }
    }),
  );
}
