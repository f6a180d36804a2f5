/** The file name, inside the cache folder, of the catalog cache entry filed under `key`. */
export function catalogEntryName(key: string): string {
  return `${key}.json`;
}
