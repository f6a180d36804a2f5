import { mkdir, open, readdir, rename, rm, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { errorCode, sha256Hex } from "../values.ts";
import { catalogEntryName } from "./cache-file.ts";
import {
  type CachedDiscovery,
  type CacheStamp,
  type CatalogCacheOptions,
  ENTRY_KIND,
} from "./cache-key.ts";
import { type Entry, MAX_CATALOG_CACHE_BYTES } from "./catalog-cache.ts";

/**
 * Store a discovery and its stamp under `key` (see writePrivateFile: atomic, private, stale
 * files pruned), resolving with the sha256 of the entry's text, or null when it was not stored:
 * failures are logged, never thrown.
 */
export async function writeCatalogCache(
  options: CatalogCacheOptions,
  key: string,
  discovery: CachedDiscovery,
  stamp: CacheStamp,
): Promise<string | null> {
  try {
    const entry: Entry = {
      ...ENTRY_KIND,
      key,
      input: stamp.input,
      fingerprint: stamp.fingerprint,
      configDigest: stamp.configDigest,
      pythonSource: discovery.pythonSource,
      condaArgv: discovery.condaArgv,
      introspection: discovery.introspection,
    };
    const text = entryText(entry);
    if (Buffer.byteLength(text) > MAX_CATALOG_CACHE_BYTES) {
      options.log?.("catalog cache: not written, the catalog is larger than an entry may be");
      return null;
    }
    await writePrivateFile(options.cacheDir, catalogEntryName(key), text);
    return sha256Hex(text);
  } catch (error) {
    options.log?.(`catalog cache: not written (${errorCode(error) ?? "unexpected error"})`);
    return null;
  }
}

/**
 * A catalog cache entry as stored (`<key>.json`, two JSON texts, one per line): its facts on the
 * first line, conda's parser (the actions and the tree, nearly all of its bytes) on the second.
 * A warm start that the startup snapshot proved reads the first line only, and parses the second
 * when the tree is first needed.
 */
export function entryText(entry: Entry): string {
  const { actions, tree, ...facts } = entry.introspection;
  const head = JSON.stringify({ ...entry, introspection: facts });
  return `${head}\n${JSON.stringify({ actions, tree })}\n`;
}

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

/**
 * Replaces `file` with `text` (or bytes) in one step: it goes to a new file beside it (`temporary`,
 * by default a hidden name of its own), is flushed to disk, then renamed over it, so a reader
 * sees the old file or the new one, never a part. `mode` is set on the new file exactly (the old
 * file's permissions, or a private 0600); null gives the default (0666 less umask).
 */
export async function writeFileAtomic(
  file: string,
  text: string | Uint8Array,
  mode: number | null,
  temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomHex(6)}.tmp`),
): Promise<void> {
  const handle = await open(temporary, "wx", mode ?? 0o666);
  try {
    try {
      // open's mode is narrowed by the umask; the mode asked for is what the file must have.
      if (mode !== null) await handle.chmod(mode);
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // On Windows, rename replaces an existing file too (MoveFileEx with REPLACE_EXISTING).
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * `bytes` random bytes in hex, from the Web Crypto global: importing node:crypto would make bun
 * build it and node:stream, several milliseconds, in the start or call that first loads it.
 */
export function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}
