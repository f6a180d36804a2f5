import { writeFile } from "node:fs/promises";
import { errorCode } from "../values.ts";

/** `20260801T101502Z`: the moment in UTC, to the second, in a form every file system takes. */
function stamp(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
}

/**
 * Saves `bytes` (a file's content before setup changes it) beside it as
 * `<file>.<UTC time>.bak`, never over an existing file: a second backup in the same second
 * is `<file>.<UTC time>-2.bak`. Returns the backup's path.
 */
export async function writeBackup(
  file: string,
  bytes: Uint8Array,
  mode: number,
  now: Date,
): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const backup = `${file}.${stamp(now)}${attempt === 1 ? "" : `-${attempt}`}.bak`;
    try {
      await writeFile(backup, bytes, { flag: "wx", mode });
      return backup;
    } catch (error) {
      if (errorCode(error) !== "EEXIST" || attempt >= 100) throw error;
    }
  }
}
