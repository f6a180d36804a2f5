import { createHash } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Appended to a description in a stored snapshot: seeing it proves the answer came from there. */
// Not ASCII: a reader that mixed up characters and bytes would not find it whole.
export const SNAPSHOT_MARK = " [answered from the snapshot − ±]";

/** The startup snapshot files in a conda-mcp cache folder. */
export async function snapshotFiles(cacheDir: string): Promise<string[]> {
  const names = await readdir(cacheDir).catch(() => []);
  return names.filter((n) => n.endsWith(".snapshot.json")).map((n) => join(cacheDir, n));
}

/** The four lines of a snapshot file: header, initialize answer, tools/list answer, catalog. */
export async function readSnapshot(
  file: string,
): Promise<{ header: Record<string, unknown>; init: string; list: string; catalog: string }> {
  const [header = "", init = "", list = "", catalog = ""] = (await readFile(file, "utf8")).split(
    "\n",
  );
  return { header: JSON.parse(header), init, list, catalog };
}

/** Writes a snapshot file's four lines back. */
export async function writeSnapshot(
  file: string,
  parts: { header: Record<string, unknown>; init: string; list: string; catalog: string },
): Promise<void> {
  const { header, init, list, catalog } = parts;
  await writeFile(file, `${JSON.stringify(header)}\n${init}\n${list}\n${catalog}\n`);
}

/**
 * Marks the first tool description of every snapshot in `cacheDir` (with a matching digest, as
 * a writer would) and returns how many were marked.
 */
export async function markSnapshots(cacheDir: string): Promise<number> {
  const files = await snapshotFiles(cacheDir);
  for (const file of files) {
    const snapshot = await readSnapshot(file);
    const answer = JSON.parse(snapshot.list);
    answer.tools[0].description += SNAPSHOT_MARK;
    const list = JSON.stringify(answer);
    const digest = createHash("sha256").update(`${snapshot.init}\n${list}`).digest("hex");
    await writeSnapshot(file, { ...snapshot, header: { ...snapshot.header, digest }, list });
  }
  return files.length;
}

/** Whether any of these tool descriptions carries the mark. */
export function isMarked(tools: readonly { description?: string | undefined }[]): boolean {
  return tools.some((tool) => tool.description?.endsWith(SNAPSHOT_MARK));
}
