import { readFileSync } from "node:fs";

/** True while a process with this pid exists (signal 0 checks without sending anything). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls until the condition holds, failing loudly when the deadline passes first. */
export async function waitFor(condition: () => boolean, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`${what} not reached within ${ms} ms`);
    await Bun.sleep(20);
  }
}

/** The pids a test's process tree wrote to a file, one per word; none while it is missing. */
export function pidsIn(file: string): number[] {
  try {
    return readFileSync(file, "utf8").split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
