#!/usr/bin/env bun
// npm packages from the release binaries, the way esbuild and biome ship theirs:
// `bun scripts/build-npm-packages.ts [--dist DIR] [--outdir DIR] [--repository URL] [--all-targets]`
// writes one folder per package into `outdir` (default dist/npm): `conda-mcp`, the launcher (a
// Node script as `bin`, an optional dependency per platform package), and `conda-mcp-<key>`,
// the package `@conda-mcp/<key>` holding one binary, with `os`/`cpu` (and `libc` on Linux) so
// npm installs only the one that fits. The binaries are those `<dist>/SHA256SUMS` lists (what
// the last `scripts/build.ts` run wrote), each checked against its digest.
import { createHash } from "node:crypto";
import { chmod, copyFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { binaryName, RELEASE_TARGETS, REPO_ROOT, type ReleaseTarget } from "./build.ts";
import { scriptOptions } from "./script-options.ts";

/** The scope of the platform packages (the launcher's `SCOPE` says the same). */
export const NPM_SCOPE = "@conda-mcp";

/** The launcher's source; it becomes `bin/conda-mcp.js` of the `conda-mcp` package. */
export const LAUNCHER_SOURCE: string = join(REPO_ROOT, "scripts", "npm-launcher.cjs");

/** How npm names a release target's platform: the key and the package.json fields. */
export interface NpmPlatform {
  /** `process.platform-process.arch`, `-musl` added for musl Linux: the launcher's lookup key. */
  key: string;
  os: string;
  cpu: string;
  libc: "glibc" | "musl" | null;
}

/** The npm platform of every release target. */
export const NPM_PLATFORMS: Readonly<Record<ReleaseTarget, NpmPlatform>> = {
  "bun-linux-x64": { key: "linux-x64", os: "linux", cpu: "x64", libc: "glibc" },
  "bun-linux-arm64": { key: "linux-arm64", os: "linux", cpu: "arm64", libc: "glibc" },
  "bun-linux-x64-musl": { key: "linux-x64-musl", os: "linux", cpu: "x64", libc: "musl" },
  "bun-darwin-x64": { key: "darwin-x64", os: "darwin", cpu: "x64", libc: null },
  "bun-darwin-arm64": { key: "darwin-arm64", os: "darwin", cpu: "arm64", libc: null },
  "bun-windows-x64": { key: "win32-x64", os: "win32", cpu: "x64", libc: null },
};

/** Options of {@link buildNpmPackages}. */
export interface NpmPackagesOptions {
  /** Folder with the binaries and SHA256SUMS (scripts/build.ts's --outdir). */
  dist: string;
  /** Folder the package folders are written into; emptied first. */
  outdir: string;
  /** `repository.url` of every package (npm's provenance check compares it), or null. */
  repository: string | null;
  /** Fail unless SHA256SUMS lists all six targets (a release needs every platform package). */
  allTargets: boolean;
}

/** One written package folder. */
export interface NpmPackage {
  name: string;
  dir: string;
  /** The release target whose binary it holds; null for the launcher. */
  target: ReleaseTarget | null;
}

/** What every package.json shares, taken from the repository's own. */
interface SourceManifest {
  version: string;
  description: string;
  license: string;
  repository: string | null;
}

/** Parses the script's own arguments; unknown ones throw naming the usage. */
export function parseNpmPackagesArgs(argv: readonly string[]): NpmPackagesOptions {
  const dist = join(REPO_ROOT, "dist");
  const options: NpmPackagesOptions = {
    dist,
    outdir: join(dist, "npm"),
    repository: null,
    allTargets: false,
  };
  const usage =
    "usage: bun scripts/build-npm-packages.ts [--dist DIR] [--outdir DIR] [--repository URL] [--all-targets]";
  let outdirGiven = false;
  for (const { arg, name, inline, value } of scriptOptions(argv, usage)) {
    if (name === "--dist") options.dist = resolve(value());
    else if (name === "--outdir") {
      options.outdir = resolve(value());
      outdirGiven = true;
    } else if (name === "--repository") options.repository = value();
    else if (name === "--all-targets" && inline === undefined) options.allTargets = true;
    else throw new Error(`unknown argument ${JSON.stringify(arg)}; ${usage}`);
  }
  if (!outdirGiven) options.outdir = join(options.dist, "npm");
  return options;
}

/**
 * The release targets SHA256SUMS lists, each binary checked against its digest; throws when a
 * listed binary is missing or differs, or a line names no release binary.
 */
export async function listedBinaries(dist: string): Promise<ReleaseTarget[]> {
  const sumsPath = join(dist, "SHA256SUMS");
  const sums = await readFile(sumsPath, "utf8").catch(() => {
    throw new Error(`${sumsPath} is missing: build the binaries first (npm run build)`);
  });
  const targets: ReleaseTarget[] = [];
  for (const line of sums.split("\n").filter((l) => l.trim() !== "")) {
    const match = /^([0-9a-f]{64}) {2}(.+)$/.exec(line);
    const target = RELEASE_TARGETS.find((t) => binaryName(t) === match?.[2]);
    if (!match || !target) throw new Error(`${sumsPath}: not a release binary line: ${line}`);
    const bytes = await readFile(join(dist, match[2] as string)).catch(() => {
      throw new Error(`${sumsPath} lists ${match[2]}, which is not in ${dist}`);
    });
    if (createHash("sha256").update(bytes).digest("hex") !== match[1]) {
      throw new Error(`${join(dist, match[2] as string)} does not match SHA256SUMS (rebuild it)`);
    }
    targets.push(target);
  }
  if (targets.length === 0) throw new Error(`${sumsPath} lists no binary`);
  return targets;
}

/** package.json of the platform package holding `target`'s binary. */
export function platformManifest(target: ReleaseTarget, source: SourceManifest): object {
  const platform = NPM_PLATFORMS[target];
  return {
    name: `${NPM_SCOPE}/${platform.key}`,
    version: source.version,
    description: `The ${platform.key} binary of conda-mcp (installed by the conda-mcp package)`,
    license: source.license,
    ...(source.repository ? { repository: { type: "git", url: source.repository } } : {}),
    os: [platform.os],
    cpu: [platform.cpu],
    ...(platform.libc ? { libc: [platform.libc] } : {}),
    // Yarn's Plug'n'Play would otherwise keep the binary inside a zip it cannot execute.
    preferUnplugged: true,
  };
}

/** package.json of the launcher: its bin, and an exact optional dependency per platform. */
export function launcherManifest(
  targets: readonly ReleaseTarget[],
  source: SourceManifest,
): object {
  const optionalDependencies = Object.fromEntries(
    targets.map((t) => [`${NPM_SCOPE}/${NPM_PLATFORMS[t].key}`, source.version]),
  );
  return {
    name: "conda-mcp",
    version: source.version,
    description: source.description,
    license: source.license,
    ...(source.repository ? { repository: { type: "git", url: source.repository } } : {}),
    bin: { "conda-mcp": "bin/conda-mcp.js" },
    engines: { node: ">=18" },
    optionalDependencies,
  };
}

const LAUNCHER_README = (version: string, keys: string[]) => `# conda-mcp

An MCP server that turns your own conda into typed tools. This package is a small launcher:
it runs the compiled conda-mcp binary that its platform package holds (${keys
  .map((k) => `\`${NPM_SCOPE}/${k}\``)
  .join(", ")}); npm installs only the one for your platform.

\`\`\`sh
npx -y conda-mcp@${version} --help
\`\`\`
`;

/** Writes the launcher and one platform package per listed binary into `options.outdir`. */
export async function buildNpmPackages(
  options: NpmPackagesOptions,
  log: (line: string) => void = () => {},
): Promise<NpmPackage[]> {
  const own = await Bun.file(join(REPO_ROOT, "package.json")).json();
  const source: SourceManifest = {
    version: own.version,
    description: own.description,
    license: own.license,
    repository: options.repository ?? repositoryUrl(own.repository),
  };
  const targets = await listedBinaries(options.dist);
  if (options.allTargets) {
    const missing = RELEASE_TARGETS.filter((t) => !targets.includes(t));
    if (missing.length > 0) {
      throw new Error(`--all-targets: SHA256SUMS lacks ${missing.map(binaryName).join(", ")}`);
    }
  }
  // Only the folders this script writes are replaced: --outdir may hold anything else.
  for (const name of [
    "conda-mcp",
    ...Object.values(NPM_PLATFORMS).map((p) => `conda-mcp-${p.key}`),
  ]) {
    await rm(join(options.outdir, name), { recursive: true, force: true });
  }
  const written: NpmPackage[] = [];
  for (const target of targets) {
    const { key } = NPM_PLATFORMS[target];
    const dir = join(options.outdir, `conda-mcp-${key}`);
    await mkdir(join(dir, "bin"), { recursive: true });
    const binary = join(dir, "bin", `conda-mcp${key.startsWith("win32-") ? ".exe" : ""}`);
    await copyFile(join(options.dist, binaryName(target)), binary);
    // npm pack keeps the executable bit, and the launcher executes this file directly.
    await chmod(binary, 0o755);
    await writeJson(join(dir, "package.json"), platformManifest(target, source));
    await writeFile(
      join(dir, "README.md"),
      `# ${NPM_SCOPE}/${key}\n\nThe ${key} binary of conda-mcp. Install \`conda-mcp\`, not this package.\n`,
    );
    written.push({ name: `${NPM_SCOPE}/${key}`, dir, target });
    log(`${NPM_SCOPE}/${key}@${source.version}  ${dir}`);
  }
  const dir = join(options.outdir, "conda-mcp");
  await mkdir(join(dir, "bin"), { recursive: true });
  await copyFile(LAUNCHER_SOURCE, join(dir, "bin", "conda-mcp.js"));
  await chmod(join(dir, "bin", "conda-mcp.js"), 0o755);
  await writeJson(join(dir, "package.json"), launcherManifest(targets, source));
  const keys = targets.map((t) => NPM_PLATFORMS[t].key);
  await writeFile(join(dir, "README.md"), LAUNCHER_README(source.version, keys));
  written.push({ name: "conda-mcp", dir, target: null });
  log(`conda-mcp@${source.version}  ${dir}`);
  return written;
}

function repositoryUrl(field: unknown): string | null {
  if (typeof field === "string") return field;
  if (field && typeof field === "object" && "url" in field && typeof field.url === "string") {
    return field.url;
  }
  return null;
}

async function writeJson(path: string, value: object): Promise<void> {
  await writeFile(path, `${JSON.stringify(value, null, 2)}\n`);
}

if (import.meta.main) {
  try {
    const options = parseNpmPackagesArgs(process.argv.slice(2));
    await buildNpmPackages(options, (line) => console.log(line));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
