import { errorCode } from "../error-code.ts";
import { sha256Hex } from "../sha256-hex.ts";
import type { CacheStamp } from "./cache-stamp.ts";
import { type CachedDiscovery, type Entry, MAX_CATALOG_CACHE_BYTES } from "./catalog-cache.ts";
import type { CatalogCacheOptions } from "./catalog-cache-key.ts";
import { catalogEntryName } from "./catalog-entry-name.ts";
import { ENTRY_KIND } from "./entry-kind.ts";
import { entryText } from "./entry-text.ts";
import { writePrivateFile } from "./write-private-file.ts";

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
