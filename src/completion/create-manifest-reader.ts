import { stat } from "node:fs/promises";
import {
  type ManifestReadResult,
  type ReadManifestOptions,
  readManifest,
} from "./read-manifest.ts";

/** Reads the manifest at a path; the shape `cliCommandTool` accepts as its `readManifest`. */
export type ManifestReader = (path: string) => Promise<ManifestReadResult>;

/**
 * Returns a reader that checks the file on every call but decodes it again only when its
 * identity or timestamps changed (conda-completion replaces the file by rename when it
 * regenerates it), so repeated calls cost one `stat`.
 */
export function createManifestReader(
  options: ReadManifestOptions = {},
  read: (path: string, options: ReadManifestOptions) => Promise<ManifestReadResult> = readManifest,
): ManifestReader {
  let last: { key: string; result: ManifestReadResult } | null = null;
  return async (path) => {
    const key = await statKey(path);
    if (key !== null && last !== null && last.key === key) return last.result;
    const result = await read(path, options);
    last = key === null ? null : { key, result };
    return result;
  };
}

async function statKey(path: string): Promise<string | null> {
  try {
    const s = await stat(path, { bigint: true });
    return [path, s.dev, s.ino, s.size, s.mtimeNs, s.ctimeNs].join("\0");
  } catch {
    return null;
  }
}
