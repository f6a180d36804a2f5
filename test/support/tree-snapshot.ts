import { createHash } from "node:crypto";
import { type BigIntStats, lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join, relative } from "node:path";

/** One entry of a snapshot: kind, size and, for files up to 1 MiB, a digest of the content. */
interface Entry {
  kind: "file" | "dir" | "link";
  size: number;
  digest: string | null;
}

/** Every path below a root (relative to it) and what it held, taken at one moment. */
export type TreeSnapshot = Map<string, Entry>;

/** What changed between two snapshots of one root. */
export interface TreeChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

const HASHED_UP_TO = 1024 * 1024;
// A file is read again only when its identity, size or times moved since it was last hashed: any
// write sets its ctime, which no call can set back. A time this close to the moment of the
// lstat is not trusted, as a second write within one tick of the clock could leave it as it is.
const RECENT_NS = 2_000_000_000n;
const digests = new Map<string, { stamp: string; digest: string }>();

/**
 * Snapshots a folder tree: paths, kinds, sizes and content digests of small files. Paths for
 * which `ignore` is true (relative, `/`-separated) are left out with everything below them.
 * The reads are synchronous (awaiting thousands of small reads one by one took most of a
 * red-team case's time); the promise stays for the callers.
 */
export async function snapshotTree(
  root: string,
  ignore: (path: string) => boolean = () => false,
): Promise<TreeSnapshot> {
  const snapshot: TreeSnapshot = new Map();
  function walk(dir: string): void {
    const names = attempt(() => readdirSync(dir)) ?? [];
    for (const name of names.sort()) {
      const full = join(dir, name);
      const path = relative(root, full);
      if (ignore(path)) continue;
      const statedAt = BigInt(Date.now()) * 1_000_000n;
      const stat = attempt(() => lstatSync(full, { bigint: true }));
      if (stat === undefined) continue;
      if (stat.isSymbolicLink()) {
        snapshot.set(path, { kind: "link", size: 0, digest: readlinkSync(full) });
      } else if (stat.isDirectory()) {
        snapshot.set(path, { kind: "dir", size: 0, digest: null });
        walk(full);
      } else {
        const size = Number(stat.size);
        const digest = size <= HASHED_UP_TO ? contentDigest(full, stat, statedAt) : null;
        snapshot.set(path, { kind: "file", size, digest });
      }
    }
  }
  walk(root);
  return snapshot;
}

/** Whether a file's times, as of `statedAt`, are old enough for its digest to be reused. */
export function settled(times: { mtimeNs: bigint; ctimeNs: bigint }, statedAt: bigint): boolean {
  return statedAt - times.ctimeNs > RECENT_NS && statedAt - times.mtimeNs > RECENT_NS;
}

/** The sha256 of a file's content, read again only when the file may have been written since. */
function contentDigest(full: string, stat: BigIntStats, statedAt: bigint): string {
  const stamp = [stat.dev, stat.ino, stat.size, stat.mtimeNs, stat.ctimeNs].join(":");
  const known = digests.get(full);
  if (known?.stamp === stamp) return known.digest;
  const digest = createHash("sha256").update(readFileSync(full)).digest("hex");
  if (settled(stat, statedAt)) digests.set(full, { stamp, digest });
  return digest;
}

/** What `read` returns, or undefined when it throws (a path gone since its folder was read). */
function attempt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/** The paths added, removed or changed (kind, size or digest) from one snapshot to the next. */
export function diffTrees(before: TreeSnapshot, after: TreeSnapshot): TreeChanges {
  const added = [...after.keys()].filter((path) => !before.has(path));
  const removed = [...before.keys()].filter((path) => !after.has(path));
  const changed = [...after.entries()]
    .filter(([path, entry]) => {
      const old = before.get(path);
      return (
        old !== undefined &&
        entry.kind !== "dir" &&
        (old.kind !== entry.kind || old.size !== entry.size || old.digest !== entry.digest)
      );
    })
    .map(([path]) => path);
  return { added, removed, changed };
}
