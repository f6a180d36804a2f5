import { open, rename, rm } from "node:fs/promises";
import path from "node:path";
import { randomHex } from "./random-hex.ts";

/**
 * Replaces `file` with `text` (or bytes) in one step: it goes to a new file beside it (`temporary`,
 * by default a hidden name of its own), is flushed to disk, then renamed over it, so a reader
 * sees the old file or the new one, never a part. `mode` is set on the new file exactly (the old
 * file's permissions, or a private 0600); null gives the default (0666 less umask).
 */
export async function writeFileAtomic(
  file: string,
  text: string | Uint8Array,
  mode: number | null,
  temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomHex(6)}.tmp`),
): Promise<void> {
  const handle = await open(temporary, "wx", mode ?? 0o666);
  try {
    try {
      // open's mode is narrowed by the umask; the mode asked for is what the file must have.
      if (mode !== null) await handle.chmod(mode);
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // On Windows, rename replaces an existing file too (MoveFileEx with REPLACE_EXISTING).
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
