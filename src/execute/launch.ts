/** The argv to hand to Bun.spawn, or why the program cannot be started safely. */
export type Launch =
  | { ok: true; cmd: string[]; windowsVerbatimArguments: boolean }
  | { ok: false; message: string };

/**
 * Decides how to start a program: directly by argv, or on Windows through `cmd.exe /d /s /c`
 * for a .bat/.cmd script (Windows cannot execute those directly).
 */
export function resolveLaunch(
  command: string,
  argv: readonly string[],
  platform: NodeJS.Platform,
  env: Readonly<Record<string, string>>,
): Launch {
  if (platform !== "win32" || !/\.(bat|cmd)$/i.test(command)) {
    return { ok: true, cmd: [command, ...argv], windowsVerbatimArguments: false };
  }
  const built = buildCmdLine(command, argv);
  if (!built.ok) return built;
  // A full path to cmd.exe: a bare "cmd.exe" is searched in the working directory first.
  const shell = getEnvValue(env, "ComSpec", platform) ?? "cmd.exe";
  // Verbatim: the line is already quoted for cmd; libuv's own quoting would break it.
  return {
    ok: true,
    cmd: [shell, "/d", "/s", "/c", `"${built.line}"`],
    windowsVerbatimArguments: true,
  };
}

/** A cmd.exe command line, or why the arguments cannot be passed through cmd.exe unchanged. */
export type CmdLine = { ok: true; line: string } | { ok: false; message: string };

// cmd.exe expands %VAR% even inside quotes, expands !VAR! when delayed expansion is on (conda.bat
// turns it on), doubles quoted carets when a batch file uses CALL (conda.bat does), and ends the
// command at a line break. No quoting survives these, so such arguments are refused.
const UNSAFE_IN_CMD = /[%!^\r\n\0]/;

/**
 * Builds the line that `cmd.exe /d /s /c "<line>"` runs to start a .bat/.cmd script with exactly
 * these arguments, or says which argument cannot be passed.
 */
export function buildCmdLine(script: string, argv: readonly string[]): CmdLine {
  if (UNSAFE_IN_CMD.test(script) || script.includes('"')) {
    return { ok: false, message: "the script path contains a character cmd.exe cannot quote" };
  }
  const parts = [`"${script}"`];
  for (const [index, arg] of argv.entries()) {
    if (UNSAFE_IN_CMD.test(arg)) {
      return {
        ok: false,
        message:
          `argument ${index + 1} contains %, !, ^, a line break or NUL, ` +
          "which cmd.exe cannot pass to a .bat/.cmd program unchanged",
      };
    }
    parts.push(quoteCmdArgument(arg));
  }
  return { ok: true, line: parts.join(" ") };
}

// Every argument is quoted so that no cmd metacharacter (& | < > ( ) space ...) is ever outside
// quotes. Backslashes are doubled before a quote and at the end (MSVCRT rules); an inner quote
// becomes "" which the UCRT reads as one literal quote inside a quoted argument and which keeps
// cmd's quote parity intact, even when a batch file re-parses the line through %*.
function quoteCmdArgument(arg: string): string {
  let quoted = '"';
  let backslashes = 0;
  for (const char of arg) {
    if (char === "\\") {
      backslashes += 1;
      continue;
    }
    if (char === '"') {
      quoted += `${"\\".repeat(backslashes * 2)}""`;
    } else {
      quoted += `${"\\".repeat(backslashes)}${char}`;
    }
    backslashes = 0;
  }
  return `${quoted}${"\\".repeat(backslashes * 2)}"`;
}

/** Reads one variable from a child's environment, ignoring case on Windows as Windows itself does. */
export function getEnvValue(
  env: Readonly<Record<string, string>>,
  name: string,
  platform: NodeJS.Platform,
): string | undefined {
  if (platform !== "win32") return env[name];
  const wanted = name.toUpperCase();
  for (const [key, value] of Object.entries(env)) {
    if (key.toUpperCase() === wanted) return value;
  }
  return undefined;
}

/** An environment with its unset (`undefined`) variables left out, as a child process takes it. */
export function definedEnv(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const defined: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined) defined[key] = value;
  }
  return defined;
}

/**
 * The environment conda-mcp's own scripts run in under the target's Python: the call's own
 * (so conda sees the plugins and settings it sees when run), no bytecode written, UTF-8 output,
 * and never PYTHONINSPECT, which would turn the interpreter interactive after the script.
 */
export function pythonScriptEnv(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const scriptEnv = definedEnv({ ...env, PYTHONDONTWRITEBYTECODE: "1", PYTHONIOENCODING: "utf-8" });
  delete scriptEnv.PYTHONINSPECT;
  return scriptEnv;
}
