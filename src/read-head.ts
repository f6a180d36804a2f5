import { closeSync, openSync, readSync } from "node:fs";

/** The first `bytes` bytes of a file (fewer when it is shorter), or null when it cannot be read. */
export function readHead(file: string, bytes: number): Uint8Array | null {
  let fd: number | null = null;
  try {
    fd = openSync(file, "r");
    const buffer = new Uint8Array(bytes);
    const bytesRead = readSync(fd, buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
