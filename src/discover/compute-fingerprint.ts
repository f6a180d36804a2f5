import { realpathSync, statSync } from "node:fs";
import * as v from "valibot";
import { sha256Hex } from "../sha256-hex.ts";
import { readSiteFacts, type SiteFacts } from "./read-site-facts.ts";

/** Inputs of {@link computeFingerprint}, all known after discovery (stored in cache stamps). */
export const fingerprintInputSchema = v.object({
  executable: v.string(),
  python: v.string(),
  siteDirs: v.array(v.string()),
  /** conda's version as introspected; used when no `conda-*.dist-info` folder is found. */
  condaVersion: v.string(),
});
export type FingerprintInput = v.InferOutput<typeof fingerprintInputSchema>;

/**
 * A sha256 hex digest of what decides conda's command tree: conda's version, the conda plugin
 * distributions with their versions and entry points, and the real path, size and mtime of
 * the executable and the interpreter. No Python runs: a few stats, readdirs and small reads
 * (synchronous, see scanCondaEntryPoints); after each conda call, see watchFingerprint. `site`
 * is what readSiteFacts reads in `input.siteDirs`, when the caller has read it already.
 */
export function computeFingerprint(
  input: FingerprintInput,
  site: SiteFacts = readSiteFacts(input.siteDirs),
): string {
  const material = JSON.stringify({
    conda: site.condaDist ?? input.condaVersion,
    plugins: site.plugins,
    executable: fileIdentity(input.executable),
    python: fileIdentity(input.python),
  });
  return sha256Hex(material);
}

// A folder changed this recently may change again within its mtime's granularity (one second
// on some file systems) without its mtime moving: its probe proves nothing yet (git's "racy" rule).
const SETTLED_MS = 2000;

/**
 * computeFingerprint for a check after every conda call: computed again only when a few stats
 * say that something it reads may have changed, otherwise the last value holds. The stats: the
 * mtime of each site folder, which moves whenever a distribution's folder is added, removed or
 * renamed in it (the rule importlib's own path finder caches by), and the identities of the
 * executable and the interpreter. Installers replace folders; a metadata file edited in place
 * inside one is seen at the next start.
 */
export function watchFingerprint(input: FingerprintInput): () => string {
  let last: { probe: string; fingerprint: string } | null = null;
  return () => {
    // Taken before the fingerprint, so a change made meanwhile shows in the next probe.
    const probe = probeOf(input);
    if (probe !== null && last?.probe === probe) return last.fingerprint;
    const fingerprint = computeFingerprint(input);
    last = probe === null ? null : { probe, fingerprint };
    return fingerprint;
  };
}

/** What the watch compares, or null while a site folder has just changed. */
function probeOf(input: FingerprintInput): string | null {
  const now = Date.now();
  const folders: (number | null)[] = [];
  for (const dir of input.siteDirs) {
    const mtime = mtimeOf(dir);
    if (mtime !== null && now - mtime < SETTLED_MS) return null;
    folders.push(mtime);
  }
  return JSON.stringify([folders, fileIdentity(input.executable), fileIdentity(input.python)]);
}

function mtimeOf(path: string): number | null {
  try {
    return statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? null;
  } catch {
    return null;
  }
}

/** The real path, size and mtime of a file (`<path>:missing` when it cannot be read). */
export function fileIdentity(file: string): string {
  try {
    const real = realpathSync(file);
    const info = statSync(real);
    return `${real}:${info.size}:${info.mtimeMs}`;
  } catch {
    return `${file}:missing`;
  }
}
