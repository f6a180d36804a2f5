import { afterAll, beforeAll } from "bun:test";
import { existsSync } from "node:fs";
import { lstat, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { discover } from "../../src/discover/discover.ts";
import { REAL_CONDA } from "./real-conda.ts";
import { type ProgramRun, runProgram } from "./run-program.ts";

/**
 * A private copy of a conda built by the team's real-conda kit, for tests that change conda
 * itself (install a plugin or a package into its base): the kit stays as it was.
 */
export interface KitCondaCopy {
  /** The copy's root prefix (also its base environment). */
  root: string;
  condaExe: string;
  python: string;
  /** The copy's site-packages, where conda's own package lives. */
  sitePackages: string;
  /** The environment for conda, pip and servers: the copy's HOME, offline, nothing inherited. */
  env: Record<string, string>;
  /** Runs a program by argv with {@link env} (plus `extraEnv`). */
  run(argv: string[], extraEnv?: Record<string, string>, stdin?: string): Promise<ProgramRun>;
  cleanup(): Promise<void>;
}

/** The marker folder the kit's build.sh leaves in the root prefix it made. */
export const KIT_MARKER = ".real-conda-kit";

/**
 * Copies the conda named by CONDA_MCP_TEST_CONDA when the kit built it (a 40 MB venv), and
 * relocates the copy: every text file naming the old root (scripts' `#!` lines, `.condarc`,
 * pyvenv.cfg, environments.txt) names the new one. Returns why not when it cannot: any other
 * conda is too large to copy and is not this suite's to change.
 */
export async function copyKitConda(): Promise<KitCondaCopy | string> {
  if (!REAL_CONDA) return "CONDA_MCP_TEST_CONDA names no conda";
  const discovery = await discover({
    explicitPath: REAL_CONDA,
    env: { PATH: "/usr/bin:/bin", HOME: tmpdir() },
    platform: process.platform,
    timeoutMs: 120_000,
    cacheDir: null,
  });
  const from = discovery.installation.rootPrefix;
  if (!existsSync(join(from, KIT_MARKER))) {
    return `needs a conda built by the real-conda kit (its root holds ${KIT_MARKER}), which it copies; ${from} is not one`;
  }
  const work = await mkdtemp(join(tmpdir(), "conda-mcp-kit-"));
  const root = join(work, "conda");
  try {
    const copied = await runProgram(["cp", "-a", from, root], {
      env: { PATH: "/usr/bin:/bin" },
      timeoutMs: 120_000,
    });
    if (copied.exitCode !== 0) throw new Error(`copying ${from} failed: ${copied.stderr}`);
    await relocate(root, from);
    const condaExe = join(root, relative(from, discovery.installation.executable));
    const python = join(root, "bin", "python");
    const sitePackages = join(
      root,
      relative(
        from,
        discovery.installation.siteDirs.find((dir) =>
          existsSync(join(dir, "conda", "__init__.py")),
        ) ?? "",
      ),
    );
    const env: Record<string, string> = {
      HOME: join(root, "home"),
      PATH: "/usr/local/bin:/usr/bin:/bin",
      LANG: "C.UTF-8",
      CONDA_OFFLINE: "true",
      PIP_NO_INDEX: "1",
      PIP_DISABLE_PIP_VERSION_CHECK: "1",
      // A server run from source (`bun src/main.ts`) would keep bun's transpiler cache in this
      // HOME, where the tests' snapshots of the sandbox would see it appear.
      BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0",
    };
    return {
      root,
      condaExe,
      python,
      sitePackages,
      env,
      run: (argv, extraEnv = {}, stdin) =>
        runProgram(argv, { env: { ...env, ...extraEnv }, timeoutMs: 300_000, stdin }),
      cleanup: () => rm(work, { recursive: true, force: true }),
    };
  } catch (error) {
    await rm(work, { recursive: true, force: true });
    throw error;
  }
}

/** Rewrites `from` to `root` in every text file below root (files with a NUL byte are left). */
async function relocate(root: string, from: string): Promise<void> {
  for (const path of await readdir(root, { recursive: true })) {
    if (path.startsWith(KIT_MARKER)) continue;
    const full = join(root, path);
    const stat = await lstat(full);
    if (!stat.isFile()) continue;
    const data = await readFile(full);
    if (data.includes(0) || !data.includes(from)) continue;
    await writeFile(full, data.toString("utf8").replaceAll(from, root));
  }
}

/**
 * A private kit copy for one test file: made (then readied by `prepare`) before its tests when a
 * real conda is configured, removed after them. The returned accessor gives the copy, or null
 * after saying why the tests do nothing here.
 */
export function useKitCondaCopy(
  prepare: (copy: KitCondaCopy) => Promise<void>,
  timeoutMs = 180_000,
): () => KitCondaCopy | null {
  let copy: KitCondaCopy | null = null;
  let skipped = "";
  beforeAll(async () => {
    if (!process.env.CONDA_MCP_TEST_CONDA) return;
    const made = await copyKitConda();
    if (typeof made === "string") {
      skipped = made;
      return;
    }
    copy = made;
    await prepare(made);
  }, timeoutMs);
  afterAll(async () => {
    await copy?.cleanup();
  });
  return () => {
    if (copy === null) console.log(`skipped: ${skipped}`);
    return copy;
  };
}
