import { mkdir, readdir, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { randomHex } from "../random-hex.ts";
import { writeFileAtomic } from "../write-file-atomic.ts";

/** Cache files: a catalog entry (`<sha256>.json`) or a startup snapshot (`<sha256>.snapshot.json`). */
const CACHE_FILE_NAME = /^[0-9a-f]{64}(\.snapshot)?\.json$/;
const TEMP_NAME = /^[0-9a-f]{64}(\.snapshot)?\.\d+\.[0-9a-f]+\.tmp$/;
const STALE_TEMP_MS = 60 * 60 * 1000;
const STALE_FILE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Writes `text` (or bytes) as `<cacheDir>/<name>`: to a private temporary file (mode 0600) in
 * the cache folder (created with mode 0700), synced, then renamed over the target, so readers
 * and concurrent writers only ever see whole files. Temporary files older than an hour and cache
 * files unused for 30 days are removed on the way. Throws what the file system throws.
 */
export async function writePrivateFile(
  cacheDir: string,
  name: string,
  text: string | Uint8Array,
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
