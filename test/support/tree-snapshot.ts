import { createHash } from "node:crypto";
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
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

/**
 * Snapshots a folder tree: paths, kinds, sizes and content digests of small files. Paths for
 * which `ignore` is true (relative, `/`-separated) are left out with everything below them.
 */
export async function snapshotTree(
  root: string,
  ignore: (path: string) => boolean = () => false,
): Promise<TreeSnapshot> {
  const snapshot: TreeSnapshot = new Map();
  async function walk(dir: string): Promise<void> {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names.sort()) {
      const full = join(dir, name);
      const path = relative(root, full);
      if (ignore(path)) continue;
      const stat = await lstat(full).catch(() => null);
      if (stat === null) continue;
      if (stat.isSymbolicLink()) {
        snapshot.set(path, { kind: "link", size: 0, digest: await readlink(full) });
      } else if (stat.isDirectory()) {
        snapshot.set(path, { kind: "dir", size: 0, digest: null });
        await walk(full);
      } else {
        const digest =
          stat.size <= HASHED_UP_TO
            ? createHash("sha256")
                .update(await readFile(full))
                .digest("hex")
            : null;
        snapshot.set(path, { kind: "file", size: stat.size, digest });
      }
    }
  }
  await walk(root);
  return snapshot;
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
