import { statSync } from "node:fs";

/** True when the path exists and is a directory (symlinks followed). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
