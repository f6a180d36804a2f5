import { readdirSync } from "node:fs";

/** The names in a folder, or none when it cannot be read (absent, not a folder, no access). */
export function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
