import { readdirSync, readFileSync } from "node:fs";

/**
 * Says whether a process group still has a live member. Zombies do not count: where init does
 * not reap orphans (some containers) killed grandchildren stay zombies forever. Windows has no
 * process groups: it answers true, so callers fall back to their time bound.
 */
export function isGroupAlive(pgid: number, platform: NodeJS.Platform): boolean {
  if (platform === "win32") return true;
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return platform === "linux" ? hasLiveMemberInProc(pgid) : true;
}

function hasLiveMemberInProc(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true;
  }
  return false;
}
