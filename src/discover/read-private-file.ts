import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { errorCode } from "../error-code.ts";

/**
 * The bytes of a cache file, null when there is none, or why it is not usable: a link, not a
 * regular file, not this user's private file, or larger than `maxBytes`. Cache files decide
 * what is run, so only this user's files that others cannot write are trusted. Bytes, not text:
 * a warm start decodes only the lines it needs (see decodeUtf8). Synchronous: it is on the
 * warm-start path, where a thread-pool round trip per call costs more.
 */
export function readPrivateFile(
  file: string,
  maxBytes: number,
): Uint8Array | { problem: string } | null {
  // O_NOFOLLOW: a cache file is never a link; O_NONBLOCK: a FIFO planted there cannot hang us.
  const flags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
  let fd: number;
  try {
    fd = openSync(file, flags);
  } catch (error) {
    const code = errorCode(error);
    // No file, or no cache folder yet (ENOTDIR: a file stands where a folder would be).
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    return { problem: code === "ELOOP" ? "it is a link" : `it could not be opened (${code})` };
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return { problem: "it is not a regular file" };
    const uid = process.getuid?.();
    if (uid !== undefined && (info.uid !== uid || (info.mode & 0o022) !== 0)) {
      return { problem: "it is not a private file of this user" };
    }
    if (info.size > maxBytes) return { problem: "it is too large" };
    const buffer = Buffer.alloc(info.size);
    let filled = 0;
    while (filled < buffer.length) {
      const bytesRead = readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}
