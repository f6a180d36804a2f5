import { createHash } from "node:crypto";
import { realpathSync, statSync } from "node:fs";
import * as v from "valibot";
import { listDir } from "../list-dir.ts";
import { scanCondaEntryPoints } from "./scan-conda-entry-points.ts";

/** Inputs of {@link computeFingerprint}, all known after discovery (stored in cache stamps). */
export const fingerprintInputSchema = v.object({
  executable: v.string(),
  python: v.string(),
  siteDirs: v.array(v.string()),
  /** conda's version as introspected; used when no `conda-*.dist-info` folder is found. */
  condaVersion: v.string(),
});
export type FingerprintInput = v.InferOutput<typeof fingerprintInputSchema>;

const CONDA_DIST_INFO = /^conda-([^-]+)\.dist-info$/;

/**
 * A sha256 hex digest of what decides conda's command tree: conda's version, the conda plugin
 * distributions with their versions and entry points, and the real path, size and mtime of
 * the executable and the interpreter. No Python runs: a few stats, readdirs and small reads
 * (synchronous, see scanCondaEntryPoints), cheap enough to recompute after every conda call.
 */
export function computeFingerprint(input: FingerprintInput): string {
  const material = JSON.stringify({
    conda: condaDistVersion(input.siteDirs) ?? input.condaVersion,
    plugins: scanCondaEntryPoints(input.siteDirs),
    executable: fileIdentity(input.executable),
    python: fileIdentity(input.python),
  });
  return createHash("sha256").update(material).digest("hex");
}

function condaDistVersion(siteDirs: readonly string[]): string | null {
  for (const dir of siteDirs) {
    const entries = listDir(dir);
    for (const entry of entries) {
      const match = CONDA_DIST_INFO.exec(entry);
      if (match?.[1]) return match[1];
    }
  }
  return null;
}

function fileIdentity(file: string): string {
  try {
    const real = realpathSync(file);
    const info = statSync(real);
    return `${real}:${info.size}:${info.mtimeMs}`;
  } catch {
    return `${file}:missing`;
  }
}
