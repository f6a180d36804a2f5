import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, rename, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  computeFingerprint,
  scanCondaEntryPoints,
  watchFingerprint,
} from "../../src/discover/compute-fingerprint.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";

let fixture: FixtureConda;

beforeAll(async () => {
  fixture = await makeFixtureConda();
});
afterAll(() => fixture?.cleanup());

const input = () => ({
  executable: fixture.condaExe,
  python: fixture.python,
  siteDirs: [fixture.sitePackages],
  condaVersion: "26.7.0",
});

async function addDistribution(
  name: string,
  version: string,
  entryPoints: string,
): Promise<string> {
  const dir = join(fixture.sitePackages, `${name.replaceAll("-", "_")}-${version}.dist-info`);
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, "METADATA"),
    `Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\n`,
  );
  await writeFile(join(dir, "entry_points.txt"), entryPoints);
  return dir;
}

describe("scanCondaEntryPoints", () => {
  test("lists the distributions with a [conda] section, without Python", async () => {
    expect(scanCondaEntryPoints([fixture.sitePackages])).toEqual([
      {
        distribution: "fixture-greet",
        version: "1.0.0",
        entryPointNames: ["fixture-greet"],
        entryPointValues: ["fixture_greet.plugin"],
      },
      {
        distribution: "fixture-tools",
        version: "2.1.0",
        entryPointNames: ["fixture-tools"],
        entryPointValues: ["fixture_tools.plugin"],
      },
    ]);
  });

  test("the first site dir holding a distribution wins and missing dirs are skipped", async () => {
    const other = await mkdtemp(join(tmpdir(), "conda-mcp-site-"));
    try {
      const shadow = join(other, "fixture_greet-9.9.9.dist-info");
      await mkdir(shadow);
      await writeFile(join(shadow, "entry_points.txt"), "[conda]\nshadow = shadow.plugin\n");
      const found = scanCondaEntryPoints([join(other, "missing"), fixture.sitePackages, other]);
      expect(found.find((dist) => dist.distribution === "fixture-greet")?.version).toBe("1.0.0");
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });
});

describe("computeFingerprint", () => {
  test("is a sha256 hex digest, stable across calls", async () => {
    const first = computeFingerprint(input());
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(computeFingerprint(input())).toBe(first);
  });

  test("changes when a plugin distribution is installed and returns when it is removed", async () => {
    const before = computeFingerprint(input());
    const added = await addDistribution(
      "fixture-new",
      "0.1.0",
      "[conda]\nfixture-new = fixture_new.plugin\n",
    );
    try {
      expect(computeFingerprint(input())).not.toBe(before);
    } finally {
      await rm(added, { recursive: true, force: true });
    }
    expect(computeFingerprint(input())).toBe(before);
  });

  test("ignores distributions that are not conda plugins", async () => {
    const before = computeFingerprint(input());
    const added = await addDistribution(
      "numpy",
      "2.0.0",
      "[console_scripts]\nf2py = numpy.f2py:main\n",
    );
    try {
      expect(computeFingerprint(input())).toBe(before);
    } finally {
      await rm(added, { recursive: true, force: true });
    }
  });

  test("changes when conda itself is updated", async () => {
    const before = computeFingerprint(input());
    const from = join(fixture.sitePackages, "conda-26.7.0.dist-info");
    const to = join(fixture.sitePackages, "conda-26.9.0.dist-info");
    await rename(from, to);
    try {
      expect(computeFingerprint(input())).not.toBe(before);
    } finally {
      await rename(to, from);
    }
    expect(computeFingerprint(input())).toBe(before);
  });

  test("changes when the conda executable changes", async () => {
    const before = computeFingerprint(input());
    const original = await Bun.file(fixture.condaExe).text();
    await writeFile(fixture.condaExe, `${original}# edited\n`);
    try {
      expect(computeFingerprint(input())).not.toBe(before);
    } finally {
      await writeFile(fixture.condaExe, original);
    }
  });
});

describe("watchFingerprint", () => {
  // Folders whose mtime is well in the past, as after any install that is not happening now.
  const settle = (dir: string, secondsAgo: number) => {
    const when = new Date(Date.now() - secondsAgo * 1000);
    return utimes(dir, when, when);
  };

  test("recomputes only when a site folder or the executable moved, and at once while one just did", async () => {
    const watch = watchFingerprint(input());
    const plugin = await addDistribution("fixture-watched", "1.0.0", "[conda]\nw = w.plugin\n");
    try {
      // Just changed: every check computes anew, so the new plugin shows at once.
      expect(watch()).toBe(computeFingerprint(input()));
      await settle(fixture.sitePackages, 60);
      const settled = watch();
      expect(settled).toBe(computeFingerprint(input()));
      // Rewritten in place, its site folder untouched: the probe holds, the last value stands.
      await writeFile(join(plugin, "entry_points.txt"), "[conda]\nw = w.other\n");
      expect(computeFingerprint(input())).not.toBe(settled);
      expect(watch()).toBe(settled);
      // Any change of the folder's entries moves its mtime; the watch computes again.
      await settle(fixture.sitePackages, 30);
      expect(watch()).toBe(computeFingerprint(input()));
      expect(watch()).not.toBe(settled);
    } finally {
      await rm(plugin, { recursive: true, force: true });
    }
    await settle(fixture.sitePackages, 10);
    expect(watch()).toBe(computeFingerprint(input()));
    const original = await Bun.file(fixture.condaExe).text();
    const before = watch();
    await writeFile(fixture.condaExe, `${original}# edited\n`);
    try {
      expect(watch()).not.toBe(before);
    } finally {
      await writeFile(fixture.condaExe, original);
    }
  });
});
