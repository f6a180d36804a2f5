import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { compareText, sha256Hex } from "../values.ts";

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

/** What the fingerprint reads in conda's site folders: the bulk of its file-system reads. */
export interface SiteFacts {
  /** The version of the first `conda-*.dist-info` folder found, else null. */
  condaDist: string | null;
  plugins: CondaEntryPointDistribution[];
}

const CONDA_DIST_INFO = /^conda-([^-]+)\.dist-info$/;

/** Reads conda's dist-info version and the conda plugin distributions in `siteDirs`. */
export function readSiteFacts(siteDirs: readonly string[]): SiteFacts {
  return { condaDist: condaDistVersion(siteDirs), plugins: scanCondaEntryPoints(siteDirs) };
}

function condaDistVersion(siteDirs: readonly string[]): string | null {
  for (const dir of siteDirs) {
    for (const entry of listDir(dir)) {
      const match = CONDA_DIST_INFO.exec(entry);
      if (match?.[1]) return match[1];
    }
  }
  return null;
}

/** An installed distribution that declares entry points in group `conda`. */
export interface CondaEntryPointDistribution {
  distribution: string;
  version: string | null;
  entryPointNames: string[];
  entryPointValues: string[];
}

const METADATA_DIR = /^(.+?)-([^-]+)\.(dist|egg)-info$/;

/**
 * List conda plugin distributions without Python: read `entry_points.txt` of every
 * `*.dist-info` / `*.egg-info` folder in the site dirs and keep those with a `[conda]` section.
 * Like importlib.metadata, the first site dir holding a distribution wins. Synchronous on
 * purpose: a real environment has hundreds of metadata folders, and that many tiny reads cost
 * several times more through the async thread pool on the warm-start path.
 */
export function scanCondaEntryPoints(siteDirs: readonly string[]): CondaEntryPointDistribution[] {
  const found = new Map<string, CondaEntryPointDistribution>();
  for (const dir of siteDirs) {
    const entries = listDir(dir);
    for (const entry of entries.sort()) {
      const match = METADATA_DIR.exec(entry);
      if (!match) continue;
      const folder = join(dir, entry);
      const entryPoints = readText(join(folder, "entry_points.txt"));
      if (entryPoints === null) continue;
      const conda = condaSection(entryPoints);
      if (conda.length === 0) continue;
      const metadata = readText(
        join(folder, entry.endsWith(".dist-info") ? "METADATA" : "PKG-INFO"),
      );
      const name = (metadata && header(metadata, "Name")) || (match[1] ?? entry);
      const key = normalizeName(name);
      if (found.has(key)) continue;
      found.set(key, {
        distribution: name,
        version: (metadata && header(metadata, "Version")) || match[2] || null,
        entryPointNames: conda.map(([entryName]) => entryName),
        entryPointValues: conda.map(([, value]) => value),
      });
    }
  }
  // Not localeCompare: it would load ICU, a millisecond on the warm-start path.
  return [...found.values()].sort((a, b) => compareText(a.distribution, b.distribution));
}

/** `[name, value]` pairs of the `[conda]` section of an entry_points.txt. */
function condaSection(text: string): [string, string][] {
  const pairs: [string, string][] = [];
  let inConda = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith("#") || line.startsWith(";")) continue;
    const section = /^\[(.+)\]$/.exec(line);
    if (section) {
      inConda = (section[1] ?? "").trim() === "conda";
      continue;
    }
    if (!inConda) continue;
    const separator = line.indexOf("=");
    if (separator <= 0) continue;
    pairs.push([line.slice(0, separator).trim(), line.slice(separator + 1).trim()]);
  }
  return pairs;
}

function header(metadata: string, field: string): string | null {
  const match = new RegExp(`^${field}:[ \\t]*(.+?)\\s*$`, "mi").exec(metadata.slice(0, 8192));
  return match?.[1] ?? null;
}

function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, "-");
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

/** The names in a folder, or none when it cannot be read (absent, not a folder, no access). */
export function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
