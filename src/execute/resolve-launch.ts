import { buildCmdLine } from "./build-cmd-line.ts";
import { getEnvValue } from "./get-env-value.ts";

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
