import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { computeFingerprint } from "../../src/discover/compute-fingerprint.ts";
import { discover } from "../../src/discover/discover.ts";
import { introspectPython } from "../support/introspect-python.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { parseWithTarget } from "../support/parse-with-target.ts";

const TIMEOUT = 30_000;
let fixture: FixtureConda;

beforeAll(async () => {
  fixture = await makeFixtureConda({ shebang: "sh-trampoline" });
});
afterAll(() => fixture?.cleanup());

describe("discover", () => {
  test("finds conda through CONDA_EXE, its Python, its tree and its fingerprint", async () => {
    const discovery = await discover({
      env: { ...fixture.env, CONDA_EXE: fixture.condaExe },
      platform: process.platform,
      timeoutMs: TIMEOUT,
      cacheDir: null,
    });
    expect(discovery.installation.executable).toBe(fixture.condaExe);
    expect(discovery.installation.python).toBe(fixture.python);
    expect(discovery.pythonSource).toBe("sh-trampoline");
    expect(discovery.installation.condaArgv).toEqual([fixture.condaExe]);
    expect(discovery.installation.condaVersion).toBe("26.7.0");
    expect(discovery.pythonMs).toBeGreaterThan(0);
    expect(discovery.installation.fingerprint).toBe(
      computeFingerprint({
        executable: fixture.condaExe,
        python: fixture.python,
        siteDirs: discovery.installation.siteDirs,
        condaVersion: "26.7.0",
      }),
    );
  });

  test("uses --conda and PATH the same way", async () => {
    const viaOption = await discover({
      explicitPath: fixture.prefix,
      env: { HOME: fixture.home },
      platform: process.platform,
      timeoutMs: TIMEOUT,
      cacheDir: null,
    });
    expect(viaOption.installation.executable).toBe(fixture.condaExe);
    const viaPath = await discover({
      env: fixture.env,
      platform: process.platform,
      timeoutMs: TIMEOUT,
      cacheDir: null,
    });
    expect(viaPath.installation.executable).toBe(fixture.condaExe);
    expect(viaPath.installation.fingerprint).toBe(viaOption.installation.fingerprint);
  });

  test("--no-plugins in the environment hides external plugin commands, as in conda", async () => {
    const result = await introspectPython(fixture.python, {
      env: { ...fixture.env, CONDA_NO_PLUGINS: "true" },
      timeoutMs: TIMEOUT,
      platform: process.platform,
    });
    const names = result.tree.subcommands.map((sub) => sub.command);
    expect(names).toContain("doctor");
    expect(names).not.toContain("greet");
    expect(names).not.toContain("tools");
    const greet = result.external_plugins.find((dist) => dist.project_name === "fixture-greet");
    expect(greet).toMatchObject({ hooks: [], blocked: true });
  });
});

describe("parseWithTarget", () => {
  test("argvs parse back to what conda receives, errors come back as exit codes", async () => {
    const [install, config, greet, global, badChoice] = await parseWithTarget(
      fixture.python,
      [
        ["install", "-n", "demo", "-c", "a", "-c", "b", "--freeze-installed", "numpy", "scipy"],
        ["config", "--set", "channel_priority", "strict", "--set", "a", "b"],
        ["greet", "--loud", "world"],
        ["-v", "-v", "list", "--json"],
        ["install", "--solver", "nope"],
      ],
      fixture.env,
    );
    expect(install).toMatchObject({
      ok: true,
      namespace: {
        cmd: "install",
        name: "demo",
        channel: ["a", "b"],
        update_modifier: "freeze_installed",
        packages: ["numpy", "scipy"],
        yes: { $null: true },
      },
    });
    expect(config).toMatchObject({
      ok: true,
      namespace: {
        set: [
          ["channel_priority", "strict"],
          ["a", "b"],
        ],
      },
    });
    expect(greet).toMatchObject({ ok: true, namespace: { _args: ["--loud", "world"] } });
    expect(global).toMatchObject({ ok: true, namespace: { verbosity: 2, json: true } });
    expect(badChoice).toMatchObject({ ok: false, exit_code: 2 });
    expect(badChoice?.ok === false && badChoice.stderr).toContain("invalid choice: 'nope'");
  });
});
