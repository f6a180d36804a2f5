import { readFileSync } from "node:fs";
import { join } from "node:path";

/** Absolute path of a fake program in test/fixtures/bin. */
export function fixture(name: string): string {
  return join(import.meta.dir, "..", "fixtures", "bin", name);
}

/** The environment the fake programs need (PATH finds python3 and sh). */
export function testEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined) env[key] = value;
  }
  return env;
}

/** Resolves like the promise, or rejects loudly when it is still pending after ms. */
export async function deadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still pending after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls until the condition holds, or rejects loudly after ms. */
export async function waitUntil(condition: () => boolean, ms: number, what: string): Promise<void> {
  const end = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > end) throw new Error(`${what}: not true after ${ms} ms`);
    await Bun.sleep(20);
  }
}

/** A process is gone when it no longer exists or is a zombie nobody reaps (as in containers). */
export function isGone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state === "Z" || state === "X";
  } catch {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  }
}

/** Pids printed by spawn-tree as "<kind> <pid>" lines. */
export function printedPids(stdout: string, kind: "pid" | "escaped"): number[] {
  return stdout
    .split("\n")
    .filter((line) => line.startsWith(`${kind} `))
    .map((line) => Number(line.slice(kind.length + 1)));
}

/** Kills test processes left behind on purpose (or by a failing test). */
export function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/**
 * A shell line that records its process group in `dir/pgid`, then becomes spawn-tree (depth 2,
 * width 2) with its pids in `dir/pids` and its "ready" in `dir/ready`.
 */
export function spawnTreeScript(dir: string): string {
  return [
    `ps -o pgid= -p $$ > '${join(dir, "pgid")}'`,
    `exec '${fixture("spawn-tree")}' 2 2 > '${join(dir, "pids")}' 2> '${join(dir, "ready")}'`,
  ].join("; ");
}
