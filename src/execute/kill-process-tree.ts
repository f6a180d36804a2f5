import { getEnvValue } from "./launch.ts";

const TASKKILL_WAIT_MS = 10_000;

/** The argv of `taskkill /pid <pid> /T /F`, which ends a process and all its descendants on Windows. */
export function buildTaskkillArgv(pid: number, env: Readonly<Record<string, string>>): string[] {
  const systemRoot = getEnvValue(env, "SystemRoot", "win32");
  // A full path: a bare name is searched in the working directory first.
  const taskkill = systemRoot ? `${systemRoot}\\System32\\taskkill.exe` : "taskkill.exe";
  return [taskkill, "/pid", String(pid), "/T", "/F"];
}

/**
 * Sends a signal to a process and all its descendants: to its process group on POSIX (it was
 * started as a group leader), through `taskkill /T /F` on Windows (which has no gentle signal
 * for console programs, so both signals kill at once).
 */
export async function killProcessTree(
  pid: number,
  signal: "SIGTERM" | "SIGKILL",
  platform: NodeJS.Platform,
  env: Readonly<Record<string, string>>,
): Promise<void> {
  if (platform === "win32") {
    try {
      const taskkill = Bun.spawn({
        cmd: buildTaskkillArgv(pid, env),
        stdin: "ignore",
        stdout: "ignore",
        stderr: "ignore",
        windowsHide: true,
      });
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        taskkill.exited,
        new Promise((resolve) => {
          timer = setTimeout(resolve, TASKKILL_WAIT_MS);
        }),
      ]);
      clearTimeout(timer);
    } catch {
      // taskkill missing or refused: nothing more we can do; the caller stops waiting on a bound.
    }
    return;
  }
  try {
    process.kill(-pid, signal);
  } catch {
    // No such group (the child left it or everything is gone): signal the child itself.
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}
