import { lutimesSync } from "node:fs";

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
