#!/usr/bin/env bun
// conda packages: `bun scripts/build-conda-package.ts [--subdir host|all|<subdir>[,...]]
// [--dist DIR] [--python PATH] [--outdir DIR | --channel DIR] [--build-number N] [--zstd-level N]`
// packs a release binary (from scripts/build.ts) and the `conda mcp` plugin (conda-plugin/) into
// conda-mcp-<version>-py<XY>_<N>.conda per conda subdir, with conda-package-handling.
import { createHash } from "node:crypto";
import {
  chmod,
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { binaryName, REPO_ROOT, type ReleaseTarget } from "./build.ts";
import { scriptOptions } from "./script-options.ts";

/** The folder of the conda plugin's Python project. */
export const PLUGIN_DIR: string = join(REPO_ROOT, "conda-plugin");

const PACK_SCRIPT = join(import.meta.dir, "pack-conda-package.py");

/**
 * The oldest conda whose plugin subcommands without `configure_parser` get their arguments
 * untouched (a tuple of the rest of argv); only 26.7 is tested.
 */
export const MIN_CONDA = "23.7";

/** A conda platform subdir and where its package puts things. */
export interface CondaSubdir {
  /** The release binary it takes (scripts/build.ts). */
  target: ReleaseTarget;
  /** Where the binary goes in the prefix: beside conda, on the activated PATH. */
  binaryPath: string;
  /** index.json's `platform` and `arch`. */
  platform: "linux" | "osx" | "win";
  arch: string;
}

/**
 * Every subdir a package is built for. On Windows the binary goes to `Library\bin`, where
 * conda packages put native programs (Scripts holds Python entry points); the plugin looks in
 * both. No subdir takes the musl binary: conda's own Linux builds need glibc.
 */
export const CONDA_SUBDIRS: Readonly<Record<string, CondaSubdir>> = {
  "linux-64": {
    target: "bun-linux-x64",
    binaryPath: "bin/conda-mcp",
    platform: "linux",
    arch: "x86_64",
  },
  "linux-aarch64": {
    target: "bun-linux-arm64",
    binaryPath: "bin/conda-mcp",
    platform: "linux",
    arch: "aarch64",
  },
  "osx-64": {
    target: "bun-darwin-x64",
    binaryPath: "bin/conda-mcp",
    platform: "osx",
    arch: "x86_64",
  },
  "osx-arm64": {
    target: "bun-darwin-arm64",
    binaryPath: "bin/conda-mcp",
    platform: "osx",
    arch: "arm64",
  },
  "win-64": {
    target: "bun-windows-x64",
    binaryPath: "Library/bin/conda-mcp.exe",
    platform: "win",
    arch: "x86_64",
  },
};

/** The conda subdir of this machine. */
export function hostSubdir(
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): string {
  const os = { linux: "linux", darwin: "osx", win32: "win" }[platform as string];
  const cpu = { x64: "64", arm64: os === "linux" ? "aarch64" : "arm64" }[arch];
  const subdir = `${os}-${cpu}`;
  if (!os || !cpu || !(subdir in CONDA_SUBDIRS)) {
    throw new Error(`no conda package for ${platform}-${arch}`);
  }
  return subdir;
}

/** The site-packages folder of a prefix, as conda lays it out for Python `major.minor`. */
export function sitePackages(subdir: string, python: string): string {
  return subdir.startsWith("win-") ? "Lib/site-packages" : `lib/python${python}/site-packages`;
}

/** Options of {@link buildCondaPackages}. */
export interface PackageOptions {
  subdirs: string[];
  /** Folder holding the release binaries under their release names. */
  dist: string;
  /** A Python with conda-package-handling; its major.minor is the one the package is for. */
  python: string;
  /** Where the .conda files go; with `channel`, `<channel>/<subdir>/`. */
  outdir: string;
  /** A local channel to add the packages to (repodata.json rewritten), or null. */
  channel: string | null;
  buildNumber: number;
  zstdLevel: number;
}

/** Parses the script's own arguments; unknown ones throw naming the usage. */
export function parsePackageArgs(argv: readonly string[]): PackageOptions {
  const options: PackageOptions = {
    subdirs: [],
    dist: join(REPO_ROOT, "dist"),
    python: "python3",
    outdir: join(REPO_ROOT, "dist", "conda"),
    channel: null,
    buildNumber: 0,
    zstdLevel: 19,
  };
  const usage =
    "usage: bun scripts/build-conda-package.ts [--subdir host|all|<subdir>[,...]] [--dist DIR] [--python PATH] [--outdir DIR | --channel DIR] [--build-number N] [--zstd-level N]";
  let subdir = "host";
  for (const { arg, name, value } of scriptOptions(argv, usage)) {
    const integer = (min: number, max: number): number => {
      const raw = value();
      const n = Number(raw);
      if (!/^\d+$/.test(raw) || n < min || n > max) {
        throw new Error(`${name} takes a whole number from ${min} to ${max}`);
      }
      return n;
    };
    if (name === "--subdir") subdir = value();
    else if (name === "--dist") options.dist = resolve(value());
    else if (name === "--python") options.python = value();
    else if (name === "--outdir") options.outdir = resolve(value());
    else if (name === "--channel") options.channel = resolve(value());
    else if (name === "--build-number") options.buildNumber = integer(0, 9999);
    else if (name === "--zstd-level") options.zstdLevel = integer(1, 22);
    else throw new Error(`unknown argument ${JSON.stringify(arg)}; ${usage}`);
  }
  options.subdirs =
    subdir === "all"
      ? Object.keys(CONDA_SUBDIRS)
      : subdir === "host"
        ? [hostSubdir()]
        : subdir.split(",");
  for (const s of options.subdirs) {
    if (!(s in CONDA_SUBDIRS)) {
      throw new Error(`--subdir takes host, all or ${Object.keys(CONDA_SUBDIRS).join(", ")}`);
    }
  }
  if (options.channel) options.outdir = options.channel;
  return options;
}

/** What conda-plugin/pyproject.toml says about the distribution. */
export interface PluginProject {
  name: string;
  version: string;
  description: string;
  license: string;
  requiresPython: string;
  classifiers: string[];
  /** Entry points of group `conda`: name → module. */
  condaEntryPoints: Record<string, string>;
  /** The import package (conda_mcp_plugin). */
  module: string;
}

/** Reads conda-plugin/pyproject.toml. */
export async function readPluginProject(dir: string = PLUGIN_DIR): Promise<PluginProject> {
  const toml = Bun.TOML.parse(await readFile(join(dir, "pyproject.toml"), "utf8")) as {
    project: {
      name: string;
      version: string;
      description: string;
      license: string;
      "requires-python": string;
      classifiers?: string[];
      "entry-points": { conda: Record<string, string> };
    };
    tool: { flit: { module: { name: string } } };
  };
  const project = toml.project;
  return {
    name: project.name,
    version: project.version,
    description: project.description,
    license: project.license,
    requiresPython: project["requires-python"],
    classifiers: project.classifiers ?? [],
    condaEntryPoints: project["entry-points"].conda,
    module: toml.tool.flit.module.name,
  };
}

/** The package's build string: the Python it is for and the build number (`py311_0`). */
export function buildString(python: string, buildNumber: number): string {
  return `py${python.replace(".", "")}_${buildNumber}`;
}

/** The next minor version's first pre-release, as conda pins an upper bound (`3.12.0a0`). */
function nextMinor(python: string): string {
  const [major, minor] = python.split(".").map(Number);
  return `${major}.${(minor ?? 0) + 1}.0a0`;
}

/** info/index.json: what conda's solver and repodata know of the package. */
export function indexJson(
  project: PluginProject,
  subdir: string,
  python: string,
  buildNumber: number,
  timestamp: number,
): Record<string, unknown> {
  const info = CONDA_SUBDIRS[subdir] as CondaSubdir;
  return {
    arch: info.arch,
    build: buildString(python, buildNumber),
    build_number: buildNumber,
    // Not noarch: python: the binary is per platform, so the plugin's files sit in the
    // site-packages of one Python version, which the package pins.
    depends: [`conda >=${MIN_CONDA}`, `python >=${python},<${nextMinor(python)}`],
    license: project.license,
    name: project.name,
    platform: info.platform,
    subdir,
    timestamp,
    version: project.version,
  };
}

/** A wheel RECORD hash: urlsafe base64 of the sha256, without padding. */
function recordHash(data: Uint8Array): string {
  return `sha256=${createHash("sha256").update(data).digest("base64url")}`;
}

/**
 * The dist-info pip would write for the plugin (its entry_points.txt is what conda's plugin
 * manager reads), with INSTALLER `conda` since conda owns the files.
 */
export function distInfoFiles(
  project: PluginProject,
  installed: ReadonlyMap<string, Uint8Array>,
): Map<string, string> {
  const distInfo = `${project.name.replaceAll("-", "_")}-${project.version}.dist-info`;
  const metadata = [
    "Metadata-Version: 2.4",
    `Name: ${project.name}`,
    `Version: ${project.version}`,
    `Summary: ${project.description}`,
    `Requires-Python: ${project.requiresPython}`,
    `License-Expression: ${project.license}`,
    ...project.classifiers.map((c) => `Classifier: ${c}`),
    "",
  ].join("\n");
  const entryPoints = [
    "[conda]",
    ...Object.entries(project.condaEntryPoints).map(([name, target]) => `${name}=${target}`),
    "",
  ].join("\n");
  const files = new Map<string, string>([
    [`${distInfo}/METADATA`, metadata],
    [`${distInfo}/entry_points.txt`, entryPoints],
    [`${distInfo}/INSTALLER`, "conda\n"],
  ]);
  const encoder = new TextEncoder();
  const lines = [...installed, ...[...files].map(([p, t]) => [p, encoder.encode(t)] as const)]
    .map(([path, data]) => `${path},${recordHash(data)},${data.length}`)
    .sort();
  files.set(`${distInfo}/RECORD`, [...lines, `${distInfo}/RECORD,,`, ""].join("\n"));
  return files;
}

/** A staged file: its path in the prefix, its bytes and whether it is executable. */
interface StagedFile {
  path: string;
  data: Uint8Array;
  executable: boolean;
}

/** info/paths.json: every file with its sha256 and size; none holds a prefix placeholder. */
export function pathsJson(files: readonly StagedFile[]): Record<string, unknown> {
  return {
    paths: [...files]
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
      .map((f) => ({
        _path: f.path,
        path_type: "hardlink",
        sha256: createHash("sha256").update(f.data).digest("hex"),
        size_in_bytes: f.data.length,
      })),
    paths_version: 1,
  };
}

/** Runs a program by argv; throws with its output when it fails. */
async function run(argv: string[], what: string): Promise<string> {
  const proc = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`${what} failed (exit ${code}): ${stderr.trim() || stdout}`);
  return stdout;
}

/** The `major.minor` of the packing Python, after checking it has conda-package-handling. */
async function pythonVersion(python: string): Promise<string> {
  const probe =
    "import sys\ntry:\n import conda_package_handling, zstandard\nexcept ImportError as e:\n sys.exit(f'{e}')\nprint('%d.%d' % sys.version_info[:2])";
  try {
    return (await run([python, "-c", probe], `${python}`)).trim();
  } catch (error) {
    throw new Error(
      `--python must name a Python with conda-package-handling (a conda base environment's python has it): ${error instanceof Error ? error.message : error}`,
    );
  }
}

/** The plugin's .py files and the .pyc the packing Python compiles (checked by hash, not mtime). */
async function pluginModules(
  project: PluginProject,
  interpreter: string,
  work: string,
): Promise<Map<string, Uint8Array>> {
  const source = join(PLUGIN_DIR, project.module);
  const copy = join(work, "plugin", project.module);
  await mkdir(copy, { recursive: true });
  for (const name of (await readdir(source)).filter((n) => n.endsWith(".py")).sort()) {
    await copyFile(join(source, name), join(copy, name));
  }
  await run(
    [interpreter, "-m", "compileall", "-q", "--invalidation-mode", "checked-hash", copy],
    "compiling the plugin",
  );
  const modules = new Map<string, Uint8Array>();
  for (const path of (await readdir(copy, { recursive: true })).sort()) {
    const full = join(copy, path);
    if (!path.endsWith(".py") && !path.endsWith(".pyc")) continue;
    modules.set(`${project.module}/${path.split("\\").join("/")}`, await readFile(full));
  }
  return modules;
}

/** One built package: its file and the repodata record conda's index would write for it. */
export interface BuiltPackage {
  subdir: string;
  path: string;
  record: Record<string, unknown>;
}

/** Every file a subdir's package installs: the binary, the plugin's modules and its dist-info. */
async function packageFiles(
  project: PluginProject,
  modules: ReadonlyMap<string, Uint8Array>,
  subdir: string,
  python: string,
  dist: string,
): Promise<StagedFile[]> {
  const info = CONDA_SUBDIRS[subdir] as CondaSubdir;
  const binary = join(dist, binaryName(info.target));
  const data = await readFile(binary).catch(() => {
    throw new Error(
      `${binary} is missing: build it first (npm run build -- --target ${info.target}, or --target all)`,
    );
  });
  const sp = sitePackages(subdir, python);
  const encoder = new TextEncoder();
  return [
    { path: info.binaryPath, data, executable: true },
    ...[...modules].map(([path, data]) => ({ path: `${sp}/${path}`, data, executable: false })),
    ...[...distInfoFiles(project, modules)].map(([path, text]) => ({
      path: `${sp}/${path}`,
      data: encoder.encode(text),
      executable: false,
    })),
  ];
}

/** The info/ folder conda reads from a package: index.json, paths.json, files, about.json. */
function infoFiles(
  project: PluginProject,
  index: Record<string, unknown>,
  files: readonly StagedFile[],
): Record<string, string> {
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  return {
    "info/index.json": json(index),
    "info/paths.json": json(pathsJson(files)),
    "info/files": files
      .map((f) => `${f.path}\n`)
      .sort()
      .join(""),
    "info/about.json": json({ license: project.license, summary: project.description }),
  };
}

/** Writes the files into a stage folder, then packs it into `file` with the packing Python. */
async function pack(
  stage: string,
  files: readonly StagedFile[],
  info: Record<string, string>,
  file: string,
  options: PackageOptions,
): Promise<void> {
  const encoder = new TextEncoder();
  const all = [
    ...files,
    ...Object.entries(info).map(([path, text]) => ({
      path,
      data: encoder.encode(text),
      executable: false,
    })),
  ];
  for (const entry of all) {
    const target = join(stage, entry.path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, entry.data);
    await chmod(target, entry.executable ? 0o755 : 0o644);
  }
  await mkdir(dirname(file), { recursive: true });
  await rm(file, { force: true });
  await run(
    [options.python, PACK_SCRIPT, stage, file, String(options.zstdLevel)],
    `packing ${basename(file)}`,
  );
}

/** Builds one .conda per requested subdir; with a channel, adds them to its repodata.json. */
export async function buildCondaPackages(
  options: PackageOptions,
  log: (line: string) => void = () => {},
): Promise<BuiltPackage[]> {
  const project = await readPluginProject();
  const python = await pythonVersion(options.python);
  const seconds = Number(process.env.SOURCE_DATE_EPOCH ?? Math.floor(Date.now() / 1000));
  const work = await mkdtemp(join(tmpdir(), "conda-mcp-package-"));
  const built: BuiltPackage[] = [];
  try {
    const modules = await pluginModules(project, options.python, work);
    for (const subdir of options.subdirs) {
      const files = await packageFiles(project, modules, subdir, python, options.dist);
      const index = indexJson(project, subdir, python, options.buildNumber, seconds * 1000);
      // One folder per subdir: the package names do not say which platform they are for.
      const file = join(
        options.outdir,
        subdir,
        `${project.name}-${project.version}-${index.build}.conda`,
      );
      await pack(
        join(work, `stage-${subdir}`),
        files,
        infoFiles(project, index, files),
        file,
        options,
      );
      const data = await readFile(file);
      const record = {
        ...index,
        md5: createHash("md5").update(data).digest("hex"),
        sha256: createHash("sha256").update(data).digest("hex"),
        size: data.length,
      };
      built.push({ subdir, path: file, record });
      log(`${relative(process.cwd(), file)}  ${(data.length / 2 ** 20).toFixed(1)} MiB`);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  if (options.channel) await addToChannel(options.channel, built);
  return built;
}

/**
 * Adds packages to a local channel's repodata.json (sha256, md5 and size computed from the
 * files, as the real-conda kit's channel is made), and gives it the noarch/repodata.json
 * conda reads from every channel.
 */
export async function addToChannel(channel: string, packages: readonly BuiltPackage[]) {
  for (const subdir of new Set([...packages.map((p) => p.subdir), "noarch"])) {
    const file = join(channel, subdir, "repodata.json");
    await mkdir(dirname(file), { recursive: true });
    const existing = await Bun.file(file)
      .json()
      .catch(() => null);
    const repodata = existing ?? {
      info: { subdir },
      packages: {},
      "packages.conda": {},
      removed: [],
      repodata_version: 1,
    };
    for (const p of packages.filter((p) => p.subdir === subdir)) {
      repodata["packages.conda"][basename(p.path)] = p.record;
    }
    await writeFile(file, `${JSON.stringify(repodata, null, 2)}\n`);
  }
}

if (import.meta.main) {
  try {
    const options = parsePackageArgs(process.argv.slice(2));
    await buildCondaPackages(options, (line) => console.log(line));
    if (options.channel) console.log(`channel: file://${options.channel}`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
