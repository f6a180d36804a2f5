import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { Unpackr } from "msgpackr/unpack";
import { errorCode } from "../values.ts";
import type { CompletionManifest } from "./completion-manifest.ts";
import { DEFAULT_MANIFEST_LIMITS, validateManifest } from "./validate-manifest.ts";

/** What reading the manifest found: absent, present but unusable, or a validated manifest. */
export type ManifestReadResult =
  | { state: "not_generated" }
  | { state: "unavailable"; reason: string }
  | { state: "ok"; manifest: CompletionManifest };

/** Limits for one read; defaults follow conda-completion's own reader (50 MiB). */
export interface ReadManifestOptions {
  maxBytes?: number;
  maxDepth?: number;
  maxEntries?: number;
}

/** conda-completion's reader refuses files above this size; so do we. */
export const MAX_MANIFEST_BYTES = 50 * 1024 * 1024;

// Maps stay `Map`s so no file key ever becomes a property of a plain object during decoding;
// int64/uint64 arrive as BigInt and validation turns them into exact numbers or strings;
// structured-clone references are refused. `msgpackr/unpack` is the pure-JS decoder (the
// package's native string extractor would bake a build-machine path into compiled binaries).
const unpackr = new Unpackr({
  mapsAsObjects: false,
  useRecords: false,
  int64AsType: "bigint",
  structuredClone: false,
});

/**
 * Reads and validates `completion.msgpack`: the size is checked on the open file before any byte
 * is read, the decode never yields BigInt or prototype-reaching keys, and every failure is a
 * value whose reason names no path and quotes no file content.
 */
export async function readManifest(
  path: string,
  options: ReadManifestOptions = {},
): Promise<ManifestReadResult> {
  const maxBytes = options.maxBytes ?? MAX_MANIFEST_BYTES;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // O_NONBLOCK: opening a FIFO planted at the path must not wait for a writer (POSIX only;
    // Windows has no such flag and no FIFOs at file paths).
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return { state: "not_generated" };
    return unavailable(`manifest file cannot be opened (${code ?? "unknown error"})`);
  }
  let bytes: Uint8Array;
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return unavailable("manifest path is not a regular file");
    if (stat.size > maxBytes) return unavailable(`manifest file is larger than ${maxBytes} bytes`);
    if (stat.size === 0) return unavailable("manifest file is empty");
    bytes = await readUpTo(handle, stat.size);
  } catch (error) {
    return unavailable(`manifest file cannot be read (${errorCode(error) ?? "unknown error"})`);
  } finally {
    await handle.close().catch(() => {});
  }
  let decoded: unknown;
  try {
    decoded = unpackr.unpack(bytes);
  } catch (error) {
    // msgpackr's messages quote decoded data, so only its "incomplete" flag is used.
    const truncated = typeof error === "object" && error !== null && "incomplete" in error;
    return unavailable(
      truncated && error.incomplete === true
        ? "manifest file is truncated"
        : "manifest file is not valid msgpack",
    );
  }
  const validation = validateManifest(decoded, {
    maxDepth: options.maxDepth ?? DEFAULT_MANIFEST_LIMITS.maxDepth,
    maxEntries: options.maxEntries ?? DEFAULT_MANIFEST_LIMITS.maxEntries,
  });
  return validation.success
    ? { state: "ok", manifest: validation.manifest }
    : unavailable(validation.reason);
}

/** Reads at most `size` bytes: a file that grows after the size check is not read further. */
async function readUpTo(
  handle: Awaited<ReturnType<typeof open>>,
  size: number,
): Promise<Uint8Array> {
  const buffer = Buffer.alloc(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await handle.read(buffer, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

function unavailable(reason: string): ManifestReadResult {
  return { state: "unavailable", reason };
}
