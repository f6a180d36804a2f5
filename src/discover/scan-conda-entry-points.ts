import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compareText } from "../compare-text.ts";
import { listDir } from "../list-dir.ts";

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
