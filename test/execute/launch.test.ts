import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { buildTaskkillArgv } from "../../src/execute/kill-process-tree.ts";
import { buildCmdLine, resolveLaunch } from "../../src/execute/launch.ts";

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

const SCRIPT = "C:\\Miniconda3\\condabin\\conda.bat";

// The UCRT's argument parser (parse_cmdline), which python.exe and conda.exe use: backslashes
// are literal unless they precede a quote; "" inside a quoted argument is one literal quote.
function parseUcrt(line: string): string[] {
  const args: string[] = [];
  let index = 0;
  while (index < line.length) {
    while (line[index] === " " || line[index] === "\t") index += 1;
    if (index >= line.length) break;
    let arg = "";
    let inQuote = false;
    while (index < line.length) {
      let slashes = 0;
      while (line[index] === "\\") {
        slashes += 1;
        index += 1;
      }
      if (line[index] === '"') {
        arg += "\\".repeat(Math.floor(slashes / 2));
        if (slashes % 2 === 1) {
          arg += '"';
        } else if (inQuote && line[index + 1] === '"') {
          arg += '"';
          index += 1;
        } else {
          inQuote = !inQuote;
        }
        index += 1;
        continue;
      }
      arg += "\\".repeat(slashes);
      const char = line[index];
      if (char === undefined || ((char === " " || char === "\t") && !inQuote)) break;
      arg += char;
      index += 1;
    }
    args.push(arg);
  }
  return args;
}

// cmd.exe reads every " as a quote toggle; its metacharacters act only outside quotes.
function cmdMetacharsOutsideQuotes(line: string): string[] {
  const found: string[] = [];
  let inQuote = false;
  for (const char of line) {
    if (char === '"') inQuote = !inQuote;
    else if (!inQuote && "&|<>()^".includes(char)) found.push(char);
  }
  return found;
}

describe("buildCmdLine", () => {
  test.each([
    [["env", "list"], '"env" "list"'],
    [["a b"], '"a b"'],
    [[""], '""'],
    [["a&b|c<d>e(f)g"], '"a&b|c<d>e(f)g"'],
    [['say "hi"'], '"say ""hi"""'],
    [['a\\"b'], '"a\\\\""b"'],
    [["C:\\dir\\"], '"C:\\dir\\\\"'],
    [["a\\\\b"], '"a\\\\b"'],
    [["numpy>=1.26,<2"], '"numpy>=1.26,<2"'],
  ])("quotes %j as %s", (argv, expected) => {
    expect(buildCmdLine(SCRIPT, argv)).toEqual({ ok: true, line: `"${SCRIPT}" ${expected}` });
  });

  test.each([["%PATH%"], ["hi!"], ["a^b"], ["line\nbreak"], ["carriage\rreturn"], ["nul\0"]])(
    "refuses %j, naming its position but not its value",
    (bad) => {
      const built = buildCmdLine(SCRIPT, ["install", bad]);
      expect(built.ok).toBe(false);
      if (built.ok) return;
      expect(built.message).toContain("argument 2");
      expect(built.message).not.toContain(bad);
    },
  );

  test("refuses a script path with a quote or percent sign", () => {
    expect(buildCmdLine('C:\\a"b\\conda.bat', []).ok).toBe(false);
    expect(buildCmdLine("C:\\%x%\\conda.bat", []).ok).toBe(false);
  });

  test("every accepted argument list round-trips through the UCRT parser with no bare cmd metacharacter", () => {
    const tricky = fc.constantFrom(
      '"',
      "\\",
      " ",
      "\t",
      "&",
      "|",
      "<",
      ">",
      "(",
      ")",
      "a",
      "é",
      "%",
    );
    const text = fc.oneof(
      fc.string({ unit: "binary", maxLength: 16 }),
      fc.string({ unit: tricky, maxLength: 16 }),
    );
    fc.assert(
      fc.property(fc.array(text, { maxLength: 6 }), (argv) => {
        const built = buildCmdLine(SCRIPT, argv);
        if (argv.some((arg) => /[%!^\r\n\0]/.test(arg))) {
          expect(built.ok).toBe(false);
          return;
        }
        expect(built.ok).toBe(true);
        if (!built.ok) return;
        expect(parseUcrt(built.line)).toEqual([SCRIPT, ...argv]);
        expect(cmdMetacharsOutsideQuotes(built.line)).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });
});
