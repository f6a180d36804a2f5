import { expect, test } from "bun:test";
import { access, constants, copyFile, mkdir, readdir, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { hostSubdir } from "../../scripts/build-conda-package.ts";
import { callCondaInfo } from "../support/call-conda-info.ts";
import { type KitCondaCopy, useKitCondaCopy } from "../support/copy-kit-conda.ts";
import { hostBinary } from "../support/host-binary.ts";
import { describeRealConda } from "../support/real-conda.ts";
import { startCondaMcp } from "../support/start-conda-mcp.ts";
import { diffTrees, snapshotTree, type TreeSnapshot } from "../support/tree-snapshot.ts";

// The conda package, end to end: scripts/build-conda-package.ts packs the host binary and the
// plugin, `conda install` puts them into the base of a private copy of the kit's conda, and
// `conda mcp` serves; `conda remove` takes them away again.

const BUILD_SCRIPT = join(import.meta.dir, "..", "..", "scripts", "build-conda-package.ts");

let channel = "";
let python = "";
/** bin/ and site-packages before the install, to compare with after the removal. */
let before: TreeSnapshot[] = [];

/** The folders the package writes into, relative to the root prefix. */
function touchedFolders(conda: KitCondaCopy): string[] {
  return [join(conda.root, "bin"), conda.sitePackages];
}

/**
 * The kit's base is a venv, not conda packages: to let the solver see the package's `python`
 * and `conda` dependencies as installed, as in a miniforge base, each gets a record without
 * files in conda-meta.
 */
async function registerBaseRecords(conda: KitCondaCopy): Promise<void> {
  const versions = await conda.run([
    conda.python,
    "-c",
    "import sys, conda; print('%d.%d.%d' % sys.version_info[:3], conda.__version__)",
  ]);
  const [pythonVersion = "", condaVersion = ""] = versions.stdout.trim().split(" ");
  python = pythonVersion.split(".").slice(0, 2).join(".");
  for (const [name, version] of [
    ["python", pythonVersion],
    ["conda", condaVersion],
  ]) {
    const record = {
      name,
      version,
      build: "0",
      build_number: 0,
      channel: "local",
      subdir: hostSubdir(),
      depends: [],
      files: [],
      paths_data: { paths: [], paths_version: 1 },
    };
    await writeFile(
      join(conda.root, "conda-meta", `${name}-${version}-0.json`),
      JSON.stringify(record),
    );
  }
}

const kit = useKitCondaCopy(async (copy) => {
  await registerBaseRecords(copy);
  channel = join(dirname(copy.root), "channel");
  const binary = await hostBinary();
  // Level 1: the release default (19) takes a minute for 100 MB; the package is the same.
  const built = await copy.run([
    process.execPath,
    BUILD_SCRIPT,
    "--dist",
    binary.dir,
    "--python",
    copy.python,
    "--channel",
    channel,
    "--zstd-level",
    "1",
  ]);
  if (built.exitCode !== 0) throw new Error(`building the package failed: ${built.stderr}`);
  before = await Promise.all(touchedFolders(copy).map((dir) => snapshotTree(dir)));
});

describeRealConda("the conda-mcp conda package", () => {
  test("`conda install conda-mcp` from a local channel puts the binary beside conda and the plugin where conda finds it", async () => {
    const conda = kit();
    if (!conda) return;
    const install = await conda.run([
      conda.condaExe,
      "install",
      "--yes",
      "--name",
      "base",
      "--override-channels",
      "--channel",
      `file://${channel}`,
      "conda-mcp",
    ]);
    expect(install.exitCode).toBe(0);
    await access(join(conda.root, "bin", "conda-mcp"), constants.X_OK);
    const listed = await conda.run([
      conda.condaExe,
      "list",
      "--name",
      "base",
      "--json",
      "^conda-mcp$",
    ]);
    expect(JSON.parse(listed.stdout)).toMatchObject([
      { name: "conda-mcp", version: "0.1.0", build_string: `py${python.replace(".", "")}_0` },
    ]);
    const plugins = await conda.run([conda.condaExe, "plugins", "list", "--json"]);
    expect(plugins.stdout).toContain('"conda-mcp"');
    const version = await conda.run([conda.condaExe, "mcp", "--version"]);
    expect(version.stdout).toBe("conda-mcp 0.1.0\n");
  });

  test("`conda mcp` from the package serves: an SDK client lists the tools and calls conda_info", async () => {
    const conda = kit();
    if (!conda) return;
    const client = await startCondaMcp(conda.condaExe, ["--no-cache"], conda.env);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("conda_info");
      expect(names).not.toContain("conda_mcp");
      expect((await callCondaInfo(client)).root_prefix).toBe(conda.root);
    } finally {
      await client.close();
    }
  }, 120_000);

  test("`conda remove conda-mcp` takes every file it installed away", async () => {
    const conda = kit();
    if (!conda) return;
    const remove = await conda.run([
      conda.condaExe,
      "remove",
      "--yes",
      "--name",
      "base",
      "conda-mcp",
    ]);
    expect(remove.exitCode).toBe(0);
    const after = await Promise.all(touchedFolders(conda).map((dir) => snapshotTree(dir)));
    for (const [i, dir] of touchedFolders(conda).entries()) {
      const changes = diffTrees(before[i] as TreeSnapshot, after[i] as TreeSnapshot);
      expect({ dir: relative(conda.root, dir), ...changes }).toEqual({
        dir: relative(conda.root, dir),
        added: [],
        removed: [],
        changed: [],
      });
    }
    const gone = await conda.run([conda.condaExe, "mcp"]);
    expect(gone.exitCode).toBe(2);
    expect(gone.stderr).toContain("invalid choice: 'mcp'");
  });

  test("packages for several subdirs land in one folder each, none overwriting another", async () => {
    const conda = kit();
    if (!conda) return;
    const binary = await hostBinary();
    const dist = join(dirname(conda.root), "two-subdirs-dist");
    const outdir = join(dirname(conda.root), "two-subdirs-out");
    await mkdir(dist, { recursive: true });
    // Packing does not look inside the binary: the host one stands in for Windows's.
    for (const name of ["conda-mcp-linux-x64", "conda-mcp-windows-x64.exe"]) {
      await copyFile(join(binary.dir, "conda-mcp-linux-x64"), join(dist, name));
    }
    const built = await conda.run([
      process.execPath,
      BUILD_SCRIPT,
      "--subdir",
      "linux-64,win-64",
      "--dist",
      dist,
      "--python",
      conda.python,
      "--outdir",
      outdir,
      "--zstd-level",
      "1",
    ]);
    expect(built.exitCode).toBe(0);
    const file = `conda-mcp-0.1.0-py${python.replace(".", "")}_0.conda`;
    expect((await readdir(outdir)).sort()).toEqual(["linux-64", "win-64"]);
    for (const subdir of ["linux-64", "win-64"]) {
      expect(await readdir(join(outdir, subdir))).toEqual([file]);
    }
  }, 120_000);
});
