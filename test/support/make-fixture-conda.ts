import { chmod, cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** How `<prefix>/bin/conda` finds its interpreter, as conda writes it in different installs. */
export type ShebangStyle = "direct" | "env" | "sh-trampoline";

/** Options of {@link makeFixtureConda}; every field has a default. */
export interface FixtureCondaOptions {
  /** First line(s) of the `conda` entry scripts. Default `direct`. */
  shebang?: ShebangStyle;
  /** Install the conda-completion stand-in with this version, or not at all. Default false. */
  withCompletion?: false | string;
  /** Install the `fixture-greet` and `fixture-tools` plugin distributions. Default true. */
  withPlugins?: boolean;
  /** Install `fixture-broken`, a plugin distribution whose module fails to import. Default false. */
  withBrokenPlugin?: boolean;
  /** Content of `<prefix>/.condarc`, or null for none. Default null. */
  condarc?: string | null;
  /** Name of the prefix folder inside the temporary root (e.g. with a space). Default `conda`. */
  prefixName?: string;
  /** Interpreter used to create the prefix with `-m venv`. Default `python3` from PATH. */
  basePython?: string;
}

/** A built fixture conda; `env` is a complete, private environment for running it. */
export interface FixtureConda {
  /** The temporary folder holding everything below; removed by cleanup(). */
  root: string;
  prefix: string;
  /** `<prefix>/bin/conda`. */
  condaExe: string;
  /** `<prefix>/bin/python` (a venv interpreter: do not resolve its symlink). */
  python: string;
  /** `<prefix>/lib/pythonX.Y/site-packages`. */
  sitePackages: string;
  /** A private HOME inside root. */
  home: string;
  /** HOME, PATH (prefix first, then /usr/bin:/bin), LANG; no variable of the test process. */
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

const FIXTURE_DIR = join(import.meta.dir, "..", "fixtures", "conda");

const ENTRY_SCRIPT_BODY = `# -*- coding: utf-8 -*-
import sys

if __name__ == "__main__":
    from conda.cli import main

    sys.exit(main())
`;

/**
 * Build a fresh fixture conda in a temporary folder: a `python -m venv --without-pip` prefix
 * with the fixture `conda` package, its plugins as real `*.dist-info` distributions, a
 * `conda-meta/` folder, an `envs/demo` environment and `bin/conda` + `condabin/conda` scripts.
 * Cost: about 0.2-0.3 s (mostly venv creation); build once per test file in `beforeAll` and
 * build a private one for tests that modify the prefix.
 */
export async function makeFixtureConda(options: FixtureCondaOptions = {}): Promise<FixtureConda> {
  const shebang = options.shebang ?? "direct";
  const root = await mkdtemp(join(tmpdir(), "conda-mcp-fixture-"));
  const prefix = join(root, options.prefixName ?? "conda");
  const home = join(root, "home");
  try {
    await createVenv(options.basePython ?? "python3", prefix);
    const sitePackages = await findSitePackages(prefix);
    const copy = (from: string) =>
      cp(from, sitePackages, {
        recursive: true,
        filter: (source) => !source.includes("__pycache__"),
      });
    await copy(join(FIXTURE_DIR, "site-packages"));
    if (options.withPlugins ?? true) {
      await copy(join(FIXTURE_DIR, "plugins", "greet"));
      await copy(join(FIXTURE_DIR, "plugins", "tools"));
    }
    if (options.withBrokenPlugin) await copy(join(FIXTURE_DIR, "plugins", "broken"));
    if (options.withCompletion) {
      await copy(join(FIXTURE_DIR, "plugins", "completion"));
      await writeCompletionDistInfo(sitePackages, options.withCompletion);
    }

    const python = join(prefix, "bin", "python");
    const script = `${shebangLines(shebang, python)}${ENTRY_SCRIPT_BODY}`;
    await mkdir(join(prefix, "condabin"), { recursive: true });
    for (const path of [join(prefix, "bin", "conda"), join(prefix, "condabin", "conda")]) {
      await writeFile(path, script);
      await chmod(path, 0o755);
    }

    await writeCondaMeta(prefix, options.withCompletion || null);
    await mkdir(join(prefix, "envs", "demo", "conda-meta"), { recursive: true });
    await writeFile(join(prefix, "envs", "demo", "conda-meta", "history"), "");
    if (options.condarc != null) await writeFile(join(prefix, ".condarc"), options.condarc);
    await mkdir(home, { recursive: true });

    return {
      root,
      prefix,
      condaExe: join(prefix, "bin", "conda"),
      python,
      sitePackages,
      home,
      env: {
        HOME: home,
        PATH: [join(prefix, "bin"), join(prefix, "condabin"), "/usr/bin", "/bin"].join(":"),
        LANG: "C.UTF-8",
      },
      cleanup: () => rm(root, { recursive: true, force: true }),
    };
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}

function shebangLines(style: ShebangStyle, python: string): string {
  switch (style) {
    case "direct":
      return `#!${python}\n`;
    case "env":
      return "#!/usr/bin/env python\n";
    case "sh-trampoline":
      return `#!/bin/sh\n'''exec' "${python}" "$0" "$@" #'''\n`;
  }
}

async function createVenv(basePython: string, prefix: string): Promise<void> {
  const proc = Bun.spawn([basePython, "-m", "venv", "--without-pip", prefix], {
    stdout: "ignore",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  if (code !== 0) throw new Error(`python -m venv failed (exit ${code}): ${stderr.trim()}`);
  // Some venv builds only create python3; conda prefixes always have bin/python.
  const bin = await readdir(join(prefix, "bin"));
  if (!bin.includes("python")) await symlink("python3", join(prefix, "bin", "python"));
}

async function findSitePackages(prefix: string): Promise<string> {
  const lib = join(prefix, "lib");
  const version = (await readdir(lib)).find((name) => /^python3\.\d+$/.test(name));
  if (!version) throw new Error("venv has no lib/python3.X folder");
  const sitePackages = join(lib, version, "site-packages");
  await mkdir(sitePackages, { recursive: true });
  return sitePackages;
}

async function writeCompletionDistInfo(sitePackages: string, version: string): Promise<void> {
  const distInfo = join(sitePackages, `conda_completion-${version}.dist-info`);
  await mkdir(distInfo, { recursive: true });
  await writeFile(
    join(distInfo, "METADATA"),
    `Metadata-Version: 2.1\nName: conda-completion\nVersion: ${version}\nSummary: Fixture stand-in for conda-completion\n`,
  );
  await writeFile(
    join(distInfo, "entry_points.txt"),
    "[conda]\nconda-completion = conda_completion.plugin\n",
  );
}

async function writeCondaMeta(prefix: string, completionVersion: string | null): Promise<void> {
  const meta = join(prefix, "conda-meta");
  await mkdir(meta, { recursive: true });
  await writeFile(join(meta, "history"), "==> 2026-01-01 00:00:00 <==\n# cmd: fixture\n");
  const records: [string, string][] = [["conda", "26.7.0"]];
  if (completionVersion) records.push(["conda-completion", completionVersion]);
  for (const [name, version] of records) {
    await writeFile(
      join(meta, `${name}-${version}-pyhd8ed1ab_0.json`),
      `${JSON.stringify({ name, version, build: "pyhd8ed1ab_0", build_number: 0, channel: "fixture" }, null, 2)}\n`,
    );
  }
}
