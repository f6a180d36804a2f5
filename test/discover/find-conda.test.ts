import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  detectBinaryFormat,
  findConda,
  parseShebang,
  windowsCondaLauncherFor,
} from "../../src/discover/find-conda.ts";
import { CondaMcpError } from "../../src/errors.ts";

let root: string;
let prefixConda: string;
let envConda: string;
let pathDir: string;
let pathConda: string;

async function executable(path: string): Promise<string> {
  await writeFile(path, "#!/bin/sh\nexit 0\n");
  await chmod(path, 0o755);
  return path;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "conda-mcp-find-"));
  await mkdir(join(root, "prefix", "bin"), { recursive: true });
  await mkdir(join(root, "from-env"), { recursive: true });
  pathDir = join(root, "on-path");
  await mkdir(pathDir, { recursive: true });
  prefixConda = await executable(join(root, "prefix", "bin", "conda"));
  envConda = await executable(join(root, "from-env", "conda"));
  pathConda = await executable(join(pathDir, "conda"));
});

afterAll(() => rm(root, { recursive: true, force: true }));

describe("findConda", () => {
  test("--conda wins over CONDA_EXE and PATH", () => {
    const env = { CONDA_EXE: envConda, PATH: pathDir };
    expect(findConda({ explicitPath: prefixConda, env, platform: "linux" })).toBe(prefixConda);
  });

  test("--conda may name a conda prefix folder", () => {
    const found = findConda({ explicitPath: join(root, "prefix"), env: {}, platform: "linux" });
    expect(found).toBe(prefixConda);
  });

  test("CONDA_EXE wins over PATH", () => {
    const env = { CONDA_EXE: envConda, PATH: pathDir };
    expect(findConda({ env, platform: "linux" })).toBe(envConda);
  });

  test("conda on PATH is used when nothing else is given", () => {
    expect(findConda({ env: { PATH: `/nonexistent:${pathDir}` }, platform: "linux" })).toBe(
      pathConda,
    );
  });

  test("a stale CONDA_EXE falls through to PATH", () => {
    const env = { CONDA_EXE: join(root, "gone", "conda"), PATH: pathDir };
    expect(findConda({ env, platform: "linux" })).toBe(pathConda);
  });

  test("the injected which is asked for conda with the env's PATH", () => {
    const asked: string[] = [];
    const found = findConda({
      env: { PATH: "/a:/b" },
      platform: "linux",
      which: (command, { path }) => {
        asked.push(`${command}@${path}`);
        return pathConda;
      },
    });
    expect(found).toBe(pathConda);
    expect(asked).toEqual(["conda@/a:/b"]);
  });

  test("not found names all three ways to point at conda", () => {
    let error: unknown;
    try {
      findConda({ env: { PATH: join(root, "empty") }, platform: "linux" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CondaMcpError);
    expect((error as CondaMcpError).code).toBe("CONDA_NOT_FOUND");
    expect((error as CondaMcpError).message).toContain("--conda PATH");
    expect((error as CondaMcpError).message).toContain("CONDA_EXE");
    expect((error as CondaMcpError).message).toContain("PATH");
  });

  test("a --conda path that is not conda fails without echoing the path", () => {
    const bogus = join(root, "nothing-here");
    expect(() => findConda({ explicitPath: bogus, env: {}, platform: "linux" })).toThrow(
      expect.objectContaining({ code: "CONDA_NOT_FOUND" }),
    );
    try {
      findConda({ explicitPath: bogus, env: {}, platform: "linux" });
    } catch (error) {
      expect((error as Error).message).not.toContain(bogus);
    }
  });
});

describe("Windows lookup", () => {
  test.each([
    ["C:\\conda\\condabin\\conda.bat", "C:\\conda\\Scripts\\conda.exe"],
    ["C:\\conda\\condabin\\CONDA.BAT", "C:\\conda\\Scripts\\conda.exe"],
    ["C:\\conda\\Scripts\\conda.exe", "C:\\conda\\Scripts\\conda.exe"],
    ["C:\\tools\\conda.bat", "C:\\tools\\conda.bat"],
  ])("%s runs %s", (found, expected) => {
    expect(windowsCondaLauncherFor(found, () => true)).toBe(expected);
  });

  test("a condabin bat whose launcher is missing is kept", () => {
    expect(windowsCondaLauncherFor("C:\\c\\condabin\\conda.bat", () => false)).toBe(
      "C:\\c\\condabin\\conda.bat",
    );
  });
});

describe("parseShebang", () => {
  test.each([
    [
      "#!/opt/conda/bin/python\nimport sys\n",
      { kind: "direct", interpreter: "/opt/conda/bin/python", argument: null },
    ],
    [
      "#! /opt/conda/bin/python -E\r\n",
      { kind: "direct", interpreter: "/opt/conda/bin/python", argument: "-E" },
    ],
    ["#!/usr/bin/env python\n", { kind: "env", program: "python" }],
    ["#!/usr/bin/env -S python3 -E\n", { kind: "env", program: "python3" }],
    ["#!/usr/bin/env PYTHONNOUSERSITE=1 python\n", { kind: "env", program: "python" }],
    [
      `#!/bin/sh\n'''exec' "/long path/with space/bin/python" "$0" "$@" #'''\n# -*- coding: utf-8 -*-\n`,
      { kind: "sh-trampoline", interpreter: "/long path/with space/bin/python" },
    ],
    [
      `#!/bin/sh\n'''exec' /opt/c/bin/python "$0" "$@"\n' '''\n`,
      { kind: "sh-trampoline", interpreter: "/opt/c/bin/python" },
    ],
    [
      '#!/bin/bash\nexec "/opt/conda/bin/python" -m conda "$@"\n',
      { kind: "shell", interpreter: "/bin/bash" },
    ],
  ])("%j", (head, expected) => {
    expect(parseShebang(head)).toEqual(expected as ReturnType<typeof parseShebang>);
  });

  test.each([["import sys\n"], [""], ["#!\n"], ["#!/usr/bin/env\n"]])(
    "%j names no interpreter",
    (head) => {
      expect(parseShebang(head)).toBeNull();
    },
  );
});

describe("detectBinaryFormat", () => {
  test.each([
    [[0x7f, 0x45, 0x4c, 0x46, 2, 1], "elf"],
    [[0x4d, 0x5a, 0x90, 0], "pe"],
    [[0xcf, 0xfa, 0xed, 0xfe], "mach-o"],
    [[0xca, 0xfe, 0xba, 0xbe], "mach-o"],
    [[0x23, 0x21, 0x2f, 0x62], null],
    [[0x7f], null],
  ])("%j is %s", (bytes, expected) => {
    expect(detectBinaryFormat(Uint8Array.from(bytes))).toBe(
      expected as ReturnType<typeof detectBinaryFormat>,
    );
  });
});
