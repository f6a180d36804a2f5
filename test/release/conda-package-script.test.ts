import { expect, test } from "bun:test";
import { join } from "node:path";
import { binaryName, REPO_ROOT } from "../../scripts/build.ts";
import {
  CONDA_SUBDIRS,
  distInfoFiles,
  hostSubdir,
  indexJson,
  parsePackageArgs,
  readPluginProject,
  sitePackages,
} from "../../scripts/build-conda-package.ts";

test.each([
  ["linux-64", "conda-mcp-linux-x64", "bin/conda-mcp", "lib/python3.12/site-packages"],
  ["linux-aarch64", "conda-mcp-linux-arm64", "bin/conda-mcp", "lib/python3.12/site-packages"],
  ["osx-64", "conda-mcp-darwin-x64", "bin/conda-mcp", "lib/python3.12/site-packages"],
  ["osx-arm64", "conda-mcp-darwin-arm64", "bin/conda-mcp", "lib/python3.12/site-packages"],
  ["win-64", "conda-mcp-windows-x64.exe", "Library/bin/conda-mcp.exe", "Lib/site-packages"],
])("the %s package takes %s as %s and the plugin into %s", (subdir, binary, path, sp) => {
  const info = CONDA_SUBDIRS[subdir];
  expect(info && binaryName(info.target)).toBe(binary);
  expect(info?.binaryPath).toBe(path);
  expect(sitePackages(subdir, "3.12")).toBe(sp);
});

test.each([
  ["linux", "x64", "linux-64"],
  ["linux", "arm64", "linux-aarch64"],
  ["darwin", "x64", "osx-64"],
  ["darwin", "arm64", "osx-arm64"],
  ["win32", "x64", "win-64"],
] as [NodeJS.Platform, string, string][])("the host %s-%s builds %s", (platform, arch, subdir) => {
  expect(hostSubdir(platform, arch)).toBe(subdir);
});

test("a host without a conda package is refused by name", () => {
  expect(() => hostSubdir("win32", "arm64")).toThrow("no conda package for win32-arm64");
  expect(() => hostSubdir("freebsd", "x64")).toThrow("no conda package for freebsd-x64");
});

test("index.json pins the Python whose site-packages holds the plugin, and needs conda", async () => {
  const project = await readPluginProject();
  expect(indexJson(project, "osx-arm64", "3.12", 2, 1767225600000)).toEqual({
    arch: "arm64",
    build: "py312_2",
    build_number: 2,
    depends: ["conda >=23.7", "python >=3.12,<3.13.0a0"],
    license: "BSD-3-Clause",
    name: "conda-mcp",
    platform: "osx",
    subdir: "osx-arm64",
    timestamp: 1767225600000,
    version: project.version,
  });
});

test("the dist-info registers the `conda` entry point and records every file it installs", async () => {
  const project = await readPluginProject();
  const module = new TextEncoder().encode("x = 1\n");
  const files = distInfoFiles(project, new Map([["conda_mcp_plugin/plugin.py", module]]));
  const distInfo = `conda_mcp-${project.version}.dist-info`;
  expect([...files.keys()].sort()).toEqual(
    ["INSTALLER", "METADATA", "RECORD", "entry_points.txt"].map((f) => `${distInfo}/${f}`),
  );
  expect(files.get(`${distInfo}/entry_points.txt`)).toBe(
    "[conda]\nconda-mcp=conda_mcp_plugin.plugin\n",
  );
  expect(files.get(`${distInfo}/INSTALLER`)).toBe("conda\n");
  const record = files.get(`${distInfo}/RECORD`)?.split("\n") ?? [];
  // sha256 of "x = 1\n", urlsafe base64 without padding, as wheels write it.
  expect(record).toContain(
    "conda_mcp_plugin/plugin.py,sha256=nia_NpkRxFwkPGhBR7I_yeHc_PJX0pmhxjIBam_NM_Q,6",
  );
  expect(record).toContain(`${distInfo}/RECORD,,`);
});

test.each([
  [[], { subdirs: [hostSubdir()], channel: null, zstdLevel: 19, buildNumber: 0 }],
  [
    ["--subdir", "all", "--build-number", "3"],
    { subdirs: Object.keys(CONDA_SUBDIRS), channel: null, zstdLevel: 19, buildNumber: 3 },
  ],
  [
    ["--subdir=win-64,osx-arm64", "--channel", "/tmp/ch", "--zstd-level", "3"],
    {
      subdirs: ["win-64", "osx-arm64"],
      channel: "/tmp/ch",
      outdir: "/tmp/ch",
      zstdLevel: 3,
      buildNumber: 0,
    },
  ],
])("package arguments %p", (argv, expected) => {
  expect(parsePackageArgs(argv)).toMatchObject({
    dist: join(REPO_ROOT, "dist"),
    python: "python3",
    ...expected,
  });
});

test.each([
  [["--subdir", "linux-ppc64le"], "--subdir takes host, all or linux-64"],
  [["--zstd-level", "30"], "--zstd-level takes a whole number from 1 to 22"],
  [["--build-number", "-1"], "--build-number takes a whole number"],
  [["--python"], "--python needs a value"],
  [["--sign"], "unknown argument"],
])("bad package arguments %p are refused", (argv, message) => {
  expect(() => parsePackageArgs(argv)).toThrow(message);
});
