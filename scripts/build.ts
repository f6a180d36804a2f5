#!/usr/bin/env bun
// Release builds: `bun scripts/build.ts [--target host|all|<bun target>] [--no-bytecode] [--outdir DIR]`
// compiles src/main.ts into self-contained binaries and writes SHA256SUMS beside them.
import { createHash } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { scriptOptions } from "./script-options.ts";

/** Every release target, as `bun build --compile --target` spells it. */
export const RELEASE_TARGETS = [
  "bun-linux-x64",
  "bun-linux-arm64",
  "bun-linux-x64-musl",
  "bun-darwin-x64",
  "bun-darwin-arm64",
  "bun-windows-x64",
] as const;

/** One of {@link RELEASE_TARGETS}. */
export type ReleaseTarget = (typeof RELEASE_TARGETS)[number];

/** The repository's root folder. */
export const REPO_ROOT: string = resolve(import.meta.dir, "..");

/** The program that is compiled. */
export const ENTRY_POINT: string = join(REPO_ROOT, "src", "main.ts");

/**
 * Flags every compile gets. A compiled binary would otherwise load `.env` and `bunfig.toml`
 * from the directory it is started in, and a bunfig `preload` runs arbitrary code.
 */
export const SAFETY_FLAGS: readonly string[] = [
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
];

/**
 * Flags of the default release build: precompiled bytecode needs ESM output, and minifying
 * shrinks what is parsed at start (measured by scripts/bench-startup.ts; see the README).
 */
export const BYTECODE_FLAGS: readonly string[] = ["--minify", "--bytecode", "--format=esm"];

/**
 * Flags of every release build, with or without bytecode: each lazily imported module goes to
 * a chunk of its own inside the binary, evaluated with the Node built-ins it imports only when
 * first imported. As one bundle, every built-in that any module imports ran before the first
 * line: a warm start paid for the MCP SDK's while only the snapshot answered.
 */
export const SPLITTING_FLAGS: readonly string[] = ["--splitting"];

/** Options of {@link buildRelease}. */
export interface BuildOptions {
  /** `host`, `all`, or one of {@link RELEASE_TARGETS}. */
  target: "host" | "all" | ReleaseTarget;
  /** Add {@link BYTECODE_FLAGS} (the default release build). */
  bytecode: boolean;
  /** Folder for the binaries and SHA256SUMS. */
  outdir: string;
}

/** A compiled binary and its checksum. */
export interface BuiltBinary {
  target: ReleaseTarget;
  path: string;
  sha256: string;
  bytes: number;
}

/** The release target of the machine running this script (musl Linux detected by its libc). */
export function hostTarget(
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
  glibc: boolean = hasGlibc(),
): ReleaseTarget {
  const os = platform === "win32" ? "windows" : platform;
  const name = `bun-${os}-${arch}${platform === "linux" && !glibc ? "-musl" : ""}`;
  const target = RELEASE_TARGETS.find((t) => t === name);
  if (!target) throw new Error(`no release target for ${platform}-${arch}`);
  return target;
}

function hasGlibc(): boolean {
  const header = process.report?.getReport?.() as { header?: { glibcVersionRuntime?: string } };
  return typeof header?.header?.glibcVersionRuntime === "string";
}

/** File name of a target's binary: `conda-mcp-<os>-<arch>[-musl][.exe]`. */
export function binaryName(target: ReleaseTarget): string {
  const suffix = target.startsWith("bun-windows-") ? ".exe" : "";
  return `conda-mcp-${target.slice("bun-".length)}${suffix}`;
}

/**
 * The full `bun build` argv that compiles one target (without the bun executable); a null
 * target compiles for the running bun's own runtime, as the host build does.
 */
export function compileArgs(
  target: ReleaseTarget | null,
  bytecode: boolean,
  outfile: string,
  entry: string = ENTRY_POINT,
): string[] {
  return [
    "build",
    "--compile",
    ...(target ? [`--target=${target}`] : []),
    ...SAFETY_FLAGS,
    ...SPLITTING_FLAGS,
    ...(bytecode ? BYTECODE_FLAGS : []),
    entry,
    "--outfile",
    outfile,
  ];
}

/** Parses the script's own arguments; unknown ones throw naming the usage. */
export function parseBuildArgs(argv: readonly string[]): BuildOptions {
  const options: BuildOptions = {
    target: "host",
    bytecode: true,
    outdir: join(REPO_ROOT, "dist"),
  };
  const usage =
    "usage: bun scripts/build.ts [--target host|all|<bun target>] [--no-bytecode] [--outdir DIR]";
  for (const { arg, name, inline, value } of scriptOptions(argv, usage)) {
    if (name === "--target") {
      const target = value();
      const known =
        target === "host" || target === "all" || RELEASE_TARGETS.some((t) => t === target);
      if (!known) {
        throw new Error(`--target takes host, all or one of ${RELEASE_TARGETS.join(", ")}`);
      }
      options.target = target as BuildOptions["target"];
    } else if (name === "--no-bytecode" && inline === undefined) {
      options.bytecode = false;
    } else if (name === "--outdir") {
      options.outdir = resolve(value());
    } else {
      throw new Error(`unknown argument ${JSON.stringify(arg)}; ${usage}`);
    }
  }
  return options;
}

/**
 * Compiles `entry` (default src/main.ts) for one target (null: the host) into `outfile` with
 * `bun build --compile` and the release flags; throws with bun's output on failure.
 */
export async function compileBinary(
  target: ReleaseTarget | null,
  bytecode: boolean,
  outfile: string,
  bun: string = process.execPath,
  entry: string = ENTRY_POINT,
): Promise<void> {
  const proc = Bun.spawn([bun, ...compileArgs(target, bytecode, outfile, entry)], {
    cwd: REPO_ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  // Cross targets download their runtime from npm once; ten minutes covers a slow mirror.
  const timer = setTimeout(() => proc.kill("SIGKILL"), 600_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(timer);
  if (code !== 0) {
    throw new Error(
      `bun build for ${target ?? "the host"} failed (exit ${code}):\n${stdout}${stderr}`,
    );
  }
}

/** Builds the requested targets into `outdir` and writes `outdir/SHA256SUMS` for them. */
export async function buildRelease(
  options: BuildOptions,
  log: (line: string) => void = () => {},
): Promise<BuiltBinary[]> {
  const targets: ReleaseTarget[] =
    options.target === "all"
      ? [...RELEASE_TARGETS]
      : [options.target === "host" ? hostTarget() : options.target];
  // The host build uses the running bun's runtime (e.g. a baseline CPU build) rather than
  // downloading the generic one for its target name.
  const host = options.target === "host" ? targets[0] : undefined;
  await mkdir(options.outdir, { recursive: true });
  const built: BuiltBinary[] = [];
  for (const target of targets) {
    const path = join(options.outdir, binaryName(target));
    await rm(path, { force: true });
    const started = performance.now();
    await compileBinary(target === host ? null : target, options.bytecode, path);
    const bytes = await readFile(path);
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    built.push({ target, path, sha256, bytes: bytes.length });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    log(`${basename(path)}  ${(bytes.length / 2 ** 20).toFixed(1)} MiB  ${seconds} s`);
  }
  // sha256sum's format (two spaces, file name only), so `sha256sum -c SHA256SUMS` checks it.
  const sums = built.map((b) => `${b.sha256}  ${basename(b.path)}\n`).join("");
  await writeFile(join(options.outdir, "SHA256SUMS"), sums);
  return built;
}

if (import.meta.main) {
  try {
    const options = parseBuildArgs(process.argv.slice(2));
    const flags = [...SAFETY_FLAGS, ...(options.bytecode ? BYTECODE_FLAGS : [])].join(" ");
    console.log(`bun build --compile ${flags} (bun ${Bun.version})`);
    await buildRelease(options, (line) => console.log(line));
    console.log(`wrote ${join(options.outdir, "SHA256SUMS")}`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
