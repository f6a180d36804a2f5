import { describe, expect, test } from "bun:test";
import { buildTaskkillArgv } from "../../src/execute/kill-process-tree.ts";
import { resolveLaunch } from "../../src/execute/resolve-launch.ts";

const WINDOWS_ENV = { comspec: "C:\\Windows\\system32\\cmd.exe", SYSTEMROOT: "C:\\Windows" };

describe("resolveLaunch", () => {
  test("runs the program directly on POSIX, whatever its name", () => {
    expect(resolveLaunch("/opt/conda/bin/conda.bat", ["a b", "%x%"], "linux", {})).toEqual({
      ok: true,
      cmd: ["/opt/conda/bin/conda.bat", "a b", "%x%"],
      windowsVerbatimArguments: false,
    });
  });

  test("runs a Windows .exe directly and lets libuv quote its arguments", () => {
    expect(resolveLaunch("C:\\conda\\Scripts\\conda.exe", ["a b"], "win32", WINDOWS_ENV)).toEqual({
      ok: true,
      cmd: ["C:\\conda\\Scripts\\conda.exe", "a b"],
      windowsVerbatimArguments: false,
    });
  });

  test.each([["conda.bat"], ["conda.cmd"], ["CONDA.BAT"]])(
    "runs a Windows %s through cmd.exe /d /s /c with a verbatim, fully quoted line",
    (script) => {
      const command = `C:\\conda\\condabin\\${script}`;
      expect(resolveLaunch(command, ["env", "a&b"], "win32", WINDOWS_ENV)).toEqual({
        ok: true,
        cmd: ["C:\\Windows\\system32\\cmd.exe", "/d", "/s", "/c", `""${command}" "env" "a&b""`],
        windowsVerbatimArguments: true,
      });
    },
  );

  test("falls back to cmd.exe when the environment names no ComSpec", () => {
    const launch = resolveLaunch("C:\\c\\conda.bat", [], "win32", {});
    expect(launch.ok && launch.cmd[0]).toBe("cmd.exe");
  });

  test("refuses a .bat argument that cmd.exe would expand", () => {
    const launch = resolveLaunch("C:\\c\\conda.bat", ["%USERPROFILE%"], "win32", WINDOWS_ENV);
    expect(launch.ok).toBe(false);
  });
});

describe("buildTaskkillArgv", () => {
  test("kills the tree forcefully by pid, with taskkill from SystemRoot", () => {
    expect(buildTaskkillArgv(4242, WINDOWS_ENV)).toEqual([
      "C:\\Windows\\System32\\taskkill.exe",
      "/pid",
      "4242",
      "/T",
      "/F",
    ]);
    expect(buildTaskkillArgv(7, {})[0]).toBe("taskkill.exe");
  });
});
