import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statSync, utimesSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { diffTrees, settled, snapshotTree } from "./tree-snapshot.ts";

// The safety suites prove "nothing changed" with these snapshots, which reuse a file's digest
// while its identity, size and times stay put: every kind of write must still show.
const OLD_TIME = 1_600_000_000;

describe("tree snapshots", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "conda-mcp-tree-"));
    writeFileSync(join(root, "old.txt"), "aaaa");
    // Whole seconds, which utimes can put back exactly.
    utimesSync(join(root, "old.txt"), OLD_TIME, OLD_TIME);
    writeFileSync(join(root, "fresh.txt"), "aaaa");
    // Old enough for its digest to be reused by the next snapshots.
    await Bun.sleep(2_100);
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  test("see a same-size rewrite whose mtime is put back", async () => {
    const file = join(root, "old.txt");
    const before = await snapshotTree(root);
    writeFileSync(file, "bbbb");
    utimesSync(file, OLD_TIME, OLD_TIME);
    expect(statSync(file, { bigint: true }).mtimeNs).toBe(BigInt(OLD_TIME) * 1_000_000_000n);
    const after = await snapshotTree(root);
    expect(diffTrees(before, after)).toEqual({ added: [], removed: [], changed: ["old.txt"] });
  });

  test("see a same-size rewrite right after the snapshot before it", async () => {
    const file = join(root, "fresh.txt");
    writeFileSync(file, "cccc");
    const before = await snapshotTree(root);
    writeFileSync(file, "dddd");
    const after = await snapshotTree(root);
    expect(diffTrees(before, after)).toEqual({ added: [], removed: [], changed: ["fresh.txt"] });
  });

  test("see nothing when nothing was written", async () => {
    const before = await snapshotTree(root);
    const after = await snapshotTree(root);
    expect(diffTrees(before, after)).toEqual({ added: [], removed: [], changed: [] });
    expect([...after.keys()].sort()).toEqual(["fresh.txt", "old.txt"]);
  });

  // A second write within one tick of a coarse clock may leave a file's times as they were:
  // only times older than 2 s let a digest be reused.
  test.each([
    ["ctime and mtime 3 s old", 3n, 3n, true],
    ["ctime 1 s old", 1n, 3n, false],
    ["mtime 1 s old", 3n, 1n, false],
    ["both now", 0n, 0n, false],
  ])("trust a file's times only when they are settled: %s", (_, ctimeAge, mtimeAge, expected) => {
    const now = 1_700_000_000n * 1_000_000_000n;
    const second = 1_000_000_000n;
    const times = { ctimeNs: now - ctimeAge * second, mtimeNs: now - mtimeAge * second };
    expect(settled(times, now)).toBe(expected);
  });
});
