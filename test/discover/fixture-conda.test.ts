import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdir } from "node:fs/promises";
import { introspectPython } from "../support/introspect-python.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { type ProgramRun, runProgram } from "../support/run-program.ts";

// The fixture is shared by every stage's tests; these pin the behaviour they rely on.
let fixture: FixtureConda;

beforeAll(async () => {
  fixture = await makeFixtureConda({ condarc: "channels:\n  - conda-forge\nno_plugins: false\n" });
});
afterAll(() => fixture?.cleanup());

function conda(...args: string[]): Promise<ProgramRun> {
  return runProgram([fixture.condaExe, ...args], {
    env: fixture.env,
    timeoutMs: 30_000,
  });
}

describe("the fixture conda when run", () => {
  test("--version prints conda's version line", async () => {
    const run = await conda("--version");
    expect(run).toMatchObject({ exitCode: 0, stdout: "conda 26.7.0\n" });
  });

  test("info --json describes the installation and reads the prefix .condarc", async () => {
    const run = await conda("info", "--json");
    expect(run.exitCode).toBe(0);
    const info = JSON.parse(run.stdout);
    expect(info).toMatchObject({
      conda_version: "26.7.0",
      root_prefix: fixture.prefix,
      "sys.executable": fixture.python,
      channels: ["conda-forge"],
    });
    expect(info.platform).toMatch(/^[a-z]+-\w+$/);
  });

  test("commands print what conda received, NULL as null and enums as their value", async () => {
    const run = await conda("install", "-n", "demo", "--no-deps", "-c", "x", "numpy");
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      command: ["install"],
      args: {
        name: "demo",
        deps_modifier: "no_deps",
        channel: ["x"],
        packages: ["numpy"],
        yes: null,
      },
    });
    const greet = await conda("greet", "--loud", "world");
    expect(JSON.parse(greet.stdout)).toEqual({ command: ["greet"], raw_args: ["--loud", "world"] });
  });

  test("usage errors exit 2 with argparse's message on stderr", async () => {
    const run = await conda("install", "--solver", "nope");
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("invalid choice: 'nope'");
  });

  test("a failing command reports conda's JSON error on stdout with --json, exit 1", async () => {
    const run = await conda("list", "-n", "missing-env", "--json");
    expect(run.exitCode).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      exception_name: "EnvironmentNameNotFound",
      message: expect.stringContaining("missing-env"),
      error: expect.stringContaining("EnvironmentNameNotFound"),
    });
  });

  test("run executes its command and passes the exit code through", async () => {
    const run = await conda("run", "-n", "demo", "sh", "-c", "echo from-child; exit 7");
    expect(run.exitCode).toBe(7);
    expect(run.stdout).toBe("from-child\n");
    expect(run.stderr).toContain("failed");
  });

  test("activate is conda's mock command", async () => {
    const run = await conda("activate", "demo");
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("Run 'conda init' before 'conda activate'");
  });

  test("running commands leaves the private HOME empty", async () => {
    await conda("info", "--json");
    await conda("env", "list");
    expect(await readdir(fixture.home)).toEqual([]);
  });
});

describe("builder options", () => {
  test("a condarc disabling plugins hides the plugin commands from introspection", async () => {
    const quiet = await makeFixtureConda({ condarc: "no_plugins: true\n" });
    try {
      const result = await introspectPython(quiet.python, {
        env: quiet.env,
        timeoutMs: 30_000,
        platform: process.platform,
      });
      const names = result.tree.subcommands.map((sub) => sub.command);
      expect(names).not.toContain("greet");
      expect(names).toContain("doctor");
    } finally {
      await quiet.cleanup();
    }
  });

  test("plugins can be left out", async () => {
    const bare = await makeFixtureConda({ withPlugins: false });
    try {
      const result = await introspectPython(bare.python, {
        env: bare.env,
        timeoutMs: 30_000,
        platform: process.platform,
      });
      expect(result.external_plugins).toEqual([]);
      expect(result.completion?.distribution_version).toBeNull();
    } finally {
      await bare.cleanup();
    }
  });
});
