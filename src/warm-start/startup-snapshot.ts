import path from "node:path";
import * as v from "valibot";
import type { Catalog } from "../catalog/catalog-types.ts";
import { credentialValues } from "../catalog/redact-secrets.ts";
import type { Config } from "../config/config-types.ts";
import {
  decodeUtf8,
  markCacheFileUsed,
  readPrivateFile,
  splitLines,
  userCacheDir,
} from "../discover/cache-file.ts";
import {
  type CacheStamp,
  type CatalogCacheOptions,
  cacheStampSchema,
  catalogCacheKey,
  ENTRY_KIND,
  stampProblem,
} from "../discover/cache-key.ts";
import { fileIdentity } from "../discover/compute-fingerprint.ts";
import type { FoundConda } from "../discover/discover.ts";
import { findConda } from "../discover/find-conda.ts";
import { errorCode, sha256Hex } from "../values.ts";
import type { HandshakeAnswers } from "./answer-handshake.ts";

/**
 * What the server answered to the MCP handshake, recorded from its own responses: the
 * `initialize` result for one requested protocol version and the `tools/list` result, as JSON
 * text (answered as they are, never parsed on the way), with the stamp of the discovery they
 * were built from, the sha256 of that catalog entry's text (null when it was not stored), and
 * the catalog built from it.
 */
export interface StartupSnapshot {
  stamp: CacheStamp;
  entryDigest: string | null;
  protocolVersion: string;
  initializeResult: string;
  toolsListResult: string;
  catalog: RecordedCatalog;
}

/**
 * The catalog the recorded answers were built from, as the bytes of its JSON text, and their
 * sha256 as recorded: checked and decoded only where it is used (off the handshake's path), see
 * discoverCatalog.
 */
export interface RecordedCatalog {
  bytes: Uint8Array;
  digest: string;
}

/** Where a snapshot is read and written: the catalog cache's folder and options. */
export interface SnapshotPlace {
  cache: CatalogCacheOptions;
  /** Names the snapshot; see {@link snapshotKey}. */
  key: string;
  /** The conda found and its catalog key, which discovery then reuses. */
  found: FoundConda;
}

// A header line (format, key, stamp, protocol version, digests), one line of JSON per answer
// (sent as stored, without a parse and a stringify of 120 KB), then the catalog's line.
export const SNAPSHOT_FORMAT = 4;
// A tools/list result for a real conda is about 135 KB; anything far larger is not ours.
const MAX_SNAPSHOT_BYTES = 16 * 1024 * 1024;

/**
 * The name of the snapshot for one catalog cache entry, one conda-mcp program (its version, the
 * identity of the executable running it, the cache entries' kind) and one set of startup
 * options: a sha256 of those and of the credential values that redaction removes from the tool
 * descriptions (so they change the listing), never stored themselves.
 */
export function snapshotKey(
  catalogKey: string,
  config: Config,
  version: string,
  program: string = process.execPath,
): string {
  // The settings, not how they were spelled (serveArgs) nor setup's own.
  const {
    env: _env,
    home: _home,
    cwd: _cwd,
    serveArgs: _serveArgs,
    setupClient: _client,
    setupScope: _scope,
    print: _print,
    ...options
  } = config;
  return sha256Hex(
    JSON.stringify({
      format: SNAPSHOT_FORMAT,
      version,
      // A rebuilt or reinstalled binary of the same version records its own snapshot.
      program: fileIdentity(program),
      entryKind: ENTRY_KIND,
      catalogKey,
      options,
      redacted: credentialValues(config.env),
    }),
  );
}

/**
 * Where this configuration's snapshot lives, or null when it cannot have one: `--no-cache`,
 * `--http`, another mode than serving, or no conda to be found (the full start-up reports it).
 * `program` is the executable whose snapshot it is: this one, unless a benchmark probe reads a
 * server binary's.
 */
export function snapshotPlace(
  config: Config,
  version: string,
  log: (line: string) => void,
  program: string = process.execPath,
): SnapshotPlace | null {
  if (config.mode !== "serve" || config.http !== null || !config.cache) return null;
  let executable: string;
  try {
    executable = findConda({
      explicitPath: config.condaPath,
      env: config.env,
      platform: config.platform,
    });
  } catch {
    return null;
  }
  const cache = cacheOptions(config, executable, log);
  if (cache === null) return null;
  const catalogKey = catalogCacheKey(cache);
  return {
    cache,
    key: snapshotKey(catalogKey, config, version, program),
    found: { executable, catalogKey },
  };
}

/** The snapshot place of a discovery whose catalog has the cache key `catalogKey`. */
export function snapshotPlaceFor(
  config: Config,
  discovered: FoundConda,
  version: string,
  log: (line: string) => void,
): SnapshotPlace | null {
  const cache = cacheOptions(config, discovered.executable, log);
  return (
    cache && {
      cache,
      key: snapshotKey(discovered.catalogKey, config, version),
      found: discovered,
    }
  );
}

function cacheOptions(
  config: Config,
  executable: string,
  log: (line: string) => void,
): CatalogCacheOptions | null {
  const cacheDir = userCacheDir({ env: config.env, platform: config.platform, home: config.home });
  if (!cacheDir) return null;
  return {
    cacheDir,
    executable,
    env: config.env,
    platform: config.platform,
    home: config.home,
    log,
  };
}

/** A snapshot's answers: its `initialize` result for the one protocol version it was recorded for. */
export function snapshotAnswers(snapshot: StartupSnapshot): HandshakeAnswers {
  return {
    initializeResult: (protocolVersion) =>
      protocolVersion === snapshot.protocolVersion ? snapshot.initializeResult : null,
    toolsListResult: () => snapshot.toolsListResult,
    fingerprint: snapshot.stamp.fingerprint,
  };
}

/**
 * The snapshot stored at `place`, or null: none, unreadable, malformed, or its stamp no longer
 * holds (conda, its plugins, interpreter or configuration changed). Never throws.
 */
export function readStartupSnapshot(place: SnapshotPlace): StartupSnapshot | null {
  const { cache } = place;
  const file = snapshotFile(place);
  try {
    const read = readPrivateFile(file, MAX_SNAPSHOT_BYTES);
    if (read === null) return null;
    if (!(read instanceof Uint8Array)) return ignored(cache, read.problem);
    // Bytes, decoded line by line: the catalog's line (over half of them) waits for its use.
    const lines = splitLines(read);
    const [initializeLine, toolsListLine, catalog] = lines.slice(1);
    const headerLine = lines[0] ?? new Uint8Array();
    const headerText = decodeUtf8(headerLine);
    if (headerText === null) return ignored(cache, "it is not UTF-8 text");
    let document: unknown;
    try {
      document = JSON.parse(headerText);
    } catch {
      return ignored(cache, "its header is not valid JSON");
    }
    const parsed = v.safeParse(headerSchema, document);
    // Exactly four lines, each ended by a line break.
    if (
      !parsed.success ||
      parsed.output.key !== place.key ||
      initializeLine === undefined ||
      toolsListLine === undefined ||
      catalog === undefined ||
      lines.length !== 5 ||
      lines[4]?.length !== 0
    ) {
      return ignored(cache, "it is malformed");
    }
    const header = parsed.output;
    // The two answer lines and the line break between them, as answersDigest hashes them.
    const answersStart = headerLine.length + 1;
    const answersEnd = answersStart + initializeLine.length + 1 + toolsListLine.length;
    if (header.digest !== sha256Hex(read.subarray(answersStart, answersEnd))) {
      return ignored(cache, "its answers do not match their digest");
    }
    const initializeResult = decodeUtf8(initializeLine);
    const toolsListResult = decodeUtf8(toolsListLine);
    if (initializeResult === null || toolsListResult === null) {
      return ignored(cache, "it is not UTF-8 text");
    }
    const changed = stampProblem(cache, header.stamp);
    if (changed) return ignored(cache, changed);
    markCacheFileUsed(file);
    return {
      stamp: header.stamp,
      entryDigest: header.entryDigest,
      protocolVersion: header.protocolVersion,
      initializeResult,
      toolsListResult,
      catalog: { bytes: catalog, digest: header.catalogDigest },
    };
  } catch (error) {
    return ignored(cache, `it could not be read (${errorCode(error) ?? "unexpected error"})`);
  }
}

/** The file of the snapshot at `place`. */
export function snapshotFile(place: SnapshotPlace): string {
  return path.join(place.cache.cacheDir, `${place.key}.snapshot.json`);
}

/** The snapshot's first line: what it is for, and the digest of the answers that follow. */
const headerSchema = v.object({
  format: v.literal(SNAPSHOT_FORMAT),
  key: v.string(),
  stamp: cacheStampSchema,
  entryDigest: v.nullable(v.string()),
  protocolVersion: v.string(),
  digest: v.string(),
  catalogDigest: v.string(),
});
export type SnapshotHeader = v.InferOutput<typeof headerSchema>;

/** Proves the answer lines whole: JSON.stringify never writes a raw line break. */
export function answersDigest(initializeResult: string, toolsListResult: string): string {
  return sha256Hex(`${initializeResult}\n${toolsListResult}`);
}

function ignored(cache: CatalogCacheOptions, reason: string): null {
  cache.log?.(`startup snapshot: ignored, ${reason}`);
  return null;
}

/** A catalog as the snapshot records it: the bytes of its JSON text and their sha256. */
export function recordCatalog(catalog: Catalog): RecordedCatalog {
  const bytes = new TextEncoder().encode(JSON.stringify(catalog));
  return { bytes, digest: sha256Hex(bytes) };
}

/** The recorded catalog while its bytes still have their recorded digest, else null. */
export function recordedCatalog(recorded: RecordedCatalog): Catalog | null {
  if (sha256Hex(recorded.bytes) !== recorded.digest) return null;
  const text = decodeUtf8(recorded.bytes);
  return text === null ? null : (JSON.parse(text) as Catalog);
}
