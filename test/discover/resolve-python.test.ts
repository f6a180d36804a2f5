import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmod, copyFile, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { prefixPythonCandidates, resolvePython } from "../../src/discover/resolve-python.ts";
import { CondaMcpError } from "../../src/errors.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { runProgram } from "../support/run-program.ts";

// One fixture per shebang style; the extra scripts below live in the first fixture's root.
let direct: FixtureConda;
let envStyle: FixtureConda;
let trampoline: FixtureConda;
const TIMEOUT = 20_000;

beforeAll(async () => {
  [direct, envStyle, trampoline] = await Promise.all([
    makeFixtureConda({ shebang: "direct" }),
    makeFixtureConda({ shebang: "env" }),
    makeFixtureConda({ shebang: "sh-trampoline", prefixName: "conda with spaces" }),
  ]);
});

afterAll(async () => {
  await Promise.all([direct?.cleanup(), envStyle?.cleanup(), trampoline?.cleanup()]);
});

async function script(path: string, text: string): Promise<string> {
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, text);
  await chmod(path, 0o755);
  return path;
}

const options = (env: Record<string, string>) => ({
  env,
  platform: "linux" as const,
  timeoutMs: TIMEOUT,
});

describe("resolvePython from the conda script", () => {
  test("a direct shebang names the interpreter", async () => {
    const resolved = await resolvePython(direct.condaExe, options(direct.env));
    expect(resolved).toEqual({
      python: direct.python,
      source: "shebang",
      condaArgv: [direct.condaExe],
      pythonMs: 0,
    });
  });

  test("an env shebang is looked up on the env's PATH", async () => {
    const resolved = await resolvePython(envStyle.condaExe, options(envStyle.env));
    expect(resolved.source).toBe("env-shebang");
    expect(resolved.python).toBe(join(envStyle.prefix, "bin", "python"));
  });

  test("an env shebang with no python on PATH falls back to the prefix", async () => {
    const resolved = await resolvePython(envStyle.condaExe, options({ PATH: "/nonexistent" }));
    expect(resolved).toMatchObject({
      source: "prefix",
      python: join(envStyle.prefix, "bin", "python"),
    });
  });

  test("a /bin/sh trampoline names the interpreter, spaces included", async () => {
    const resolved = await resolvePython(trampoline.condaExe, options(trampoline.env));
    expect(resolved).toMatchObject({ source: "sh-trampoline", python: trampoline.python });
    expect(trampoline.python).toContain("conda with spaces");
  });

  test("condabin/conda resolves like bin/conda", async () => {
    const resolved = await resolvePython(
      join(direct.prefix, "condabin", "conda"),
      options(direct.env),
    );
    expect(resolved.python).toBe(direct.python);
  });

  test("a symlinked conda with an unusable shebang finds the prefix through the link", async () => {
    const inPrefix = await script(
      join(direct.prefix, "condabin", "conda-moved"),
      "#!/nonexistent/python\nimport sys\n",
    );
    const link = join(direct.root, "user-bin", "conda");
    await mkdir(join(direct.root, "user-bin"), { recursive: true });
    await symlink(inPrefix, link);
    const resolved = await resolvePython(link, options(direct.env));
    expect(resolved).toMatchObject({
      source: "prefix",
      python: join(direct.prefix, "bin", "python"),
    });
    expect(resolved.condaArgv).toEqual([link]);
  });
});

describe("resolvePython from the environment", () => {
  test("CONDA_PYTHON_EXE is used for the CONDA_EXE it belongs to", async () => {
    const wrapper = await script(
      join(direct.root, "elsewhere", "conda"),
      "#!/nonexistent/python\n",
    );
    const env = { ...direct.env, CONDA_EXE: wrapper, CONDA_PYTHON_EXE: direct.python };
    const resolved = await resolvePython(wrapper, options(env));
    expect(resolved).toMatchObject({ source: "conda-python-exe", python: direct.python });
  });

  test("_CE_M=-m means CONDA_EXE is the interpreter and conda runs as a module", async () => {
    const env = { ...direct.env, CONDA_EXE: direct.python, _CE_M: "-m", _CE_CONDA: "conda" };
    const resolved = await resolvePython(direct.python, options(env));
    expect(resolved).toEqual({
      python: direct.python,
      source: "conda-exe-is-python",
      condaArgv: [direct.python, "-m", "conda"],
      pythonMs: 0,
    });
    const run = await runProgram([...resolved.condaArgv, "--version"], {
      env: direct.env,
      timeoutMs: TIMEOUT,
    });
    expect(run.stdout.trim()).toBe("conda 26.7.0");
  });

  test("a wrapper script outside any prefix is resolved by asking conda for its hook", async () => {
    const wrapper = await script(
      join(direct.root, "wrapper", "bin", "conda"),
      `#!/bin/sh\nexec "${direct.python}" -m conda "$@"\n`,
    );
    const resolved = await resolvePython(wrapper, options(direct.env));
    expect(resolved.source).toBe("shell-hook");
    expect(resolved.python).toBe(direct.python);
    expect(resolved.pythonMs).toBeGreaterThan(0);
  });

  test("a script naming no usable interpreter anywhere is PYTHON_NOT_FOUND", async () => {
    const lost = await script(join(direct.root, "lost", "bin", "conda"), "#!/nonexistent/python\n");
    const error = await resolvePython(lost, options(direct.env)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CondaMcpError);
    expect((error as CondaMcpError).code).toBe("PYTHON_NOT_FOUND");
  });
});

describe("native conda binaries", () => {
  test("a native binary with no Python beside it is a standalone conda", async () => {
    const standalone = join(direct.root, "standalone", "bin", "conda");
    await mkdir(join(standalone, ".."), { recursive: true });
    await copyFile("/bin/true", standalone);
    const head = (await readFile(standalone)).subarray(0, 4);
    expect([...head]).toEqual([0x7f, 0x45, 0x4c, 0x46]);
    const error = await resolvePython(standalone, options(direct.env)).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(CondaMcpError);
    expect((error as CondaMcpError).code).toBe("STANDALONE_CONDA");
  });

  test("a native conda inside a conda prefix uses the prefix's python", async () => {
    const native = join(direct.prefix, "condabin", "conda-native");
    await copyFile("/bin/true", native);
    const resolved = await resolvePython(native, options(direct.env));
    expect(resolved).toMatchObject({
      source: "prefix",
      python: join(direct.prefix, "bin", "python"),
    });
  });
});

describe("prefixPythonCandidates", () => {
  test.each([
    ["/opt/conda/bin/conda", "linux", ["/opt/conda/bin/python", "/opt/conda/bin/python3"]],
    ["/opt/conda/condabin/conda", "darwin", ["/opt/conda/bin/python", "/opt/conda/bin/python3"]],
    ["C:\\Miniforge3\\Scripts\\conda.exe", "win32", ["C:\\Miniforge3\\python.exe"]],
    ["C:\\Miniforge3\\condabin\\conda.bat", "win32", ["C:\\Miniforge3\\python.exe"]],
    ["C:\\Miniforge3\\Library\\bin\\conda.bat", "win32", ["C:\\Miniforge3\\python.exe"]],
  ])("%s (%s)", (conda, platform, expected) => {
    expect(prefixPythonCandidates(conda, platform as NodeJS.Platform)).toEqual(expected);
  });
});
