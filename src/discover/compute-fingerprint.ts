import { createHash } from "node:crypto";
import { readdir, realpath, stat } from "node:fs/promises";
import { scanCondaEntryPoints } from "./scan-conda-entry-points.ts";

/** Inputs of {@link computeFingerprint}, all known after discovery. */
export interface FingerprintInput {
  executable: string;
  python: string;
  siteDirs: readonly string[];
  /** conda's version as introspected; used when no `conda-*.dist-info` folder is found. */
  condaVersion: string;
}

const CONDA_DIST_INFO = /^conda-([^-]+)\.dist-info$/;

/**
 * A sha256 hex digest of what decides conda's command tree: conda's version, the conda plugin
 * distributions with their versions and entry points, and the real path, size and mtime of
 * the executable and the interpreter. No Python runs: a few stats, readdirs and small reads,
 * cheap enough to recompute after every conda call.
 */
export async function computeFingerprint(input: FingerprintInput): Promise<string> {
  const [condaVersion, plugins, executable, python] = await Promise.all([
    condaDistVersion(input.siteDirs),
    scanCondaEntryPoints(input.siteDirs),
    fileIdentity(input.executable),
    fileIdentity(input.python),
  ]);
  const material = JSON.stringify({
    conda: condaVersion ?? input.condaVersion,
    plugins,
    executable,
    python,
  });
  return createHash("sha256").update(material).digest("hex");
}

async function condaDistVersion(siteDirs: readonly string[]): Promise<string | null> {
  for (const dir of siteDirs) {
    let entries: string[];
    try {
      entries = await readdir(dir);
    } catch {
      continue;
    }
    for (const entry of entries) {
      const match = CONDA_DIST_INFO.exec(entry);
      if (match?.[1]) return match[1];
    }
  }
  return null;
}

async function fileIdentity(file: string): Promise<string> {
  try {
    const real = await realpath(file);
    const info = await stat(real);
    return `${real}:${info.size}:${info.mtimeMs}`;
  } catch {
    return `${file}:missing`;
  }
}
