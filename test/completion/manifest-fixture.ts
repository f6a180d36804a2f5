import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
// The pure-JS entry, as in src: the root entry would switch on the native string extractor.
import { pack } from "msgpackr/pack";
import { withDeadline } from "../support/start-server.ts";

/**
 * The manifest from the shared reference (`conda-completion-0.3-manifest-example.json`): the exact
 * shape conda-completion 0.3 writes to `completion.msgpack`, here as JSON. A fresh copy per call,
 * so tests can edit it into variants.
 */
export async function exampleManifest(): Promise<Record<string, unknown>> {
  return (await Bun.file(join(import.meta.dir, "manifest-example.json")).json()) as Record<
    string,
    unknown
  >;
}

/** The example's `plugin_hash`, i.e. a "fresh" current hash. */
export const EXAMPLE_PLUGIN_HASH = "3f196610c9213442";

/** A private temporary directory, removed by `cleanup`. */
export async function makeTempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "conda-mcp-completion-"));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Packs a value (or takes raw bytes) as the manifest file does, replacing any old file by rename. */
export async function writeManifestFile(
  dir: string,
  content: unknown,
  name = "completion.msgpack",
): Promise<string> {
  const bytes = content instanceof Uint8Array ? content : pack(content);
  const path = join(dir, name);
  // conda-completion writes a temp file and renames it over the manifest; do the same.
  const temporary = join(dir, `.tmp-${crypto.randomUUID()}`);
  await writeFile(temporary, bytes, { mode: 0o600 });
  await rename(temporary, path);
  return path;
}

/** Replaces every occurrence of `search` in `bytes` (for crafting msgpack the packer won't emit). */
export function replaceBytes(bytes: Uint8Array, search: Uint8Array, replacement: Uint8Array) {
  const out: number[] = [];
  for (let i = 0; i < bytes.length; ) {
    const hit = search.every((byte, j) => bytes[i + j] === byte);
    if (hit) {
      out.push(...replacement);
      i += search.length;
    } else {
      out.push(bytes[i] ?? 0);
      i += 1;
    }
  }
  return Uint8Array.from(out);
}

/** Walks any decoded value and collects the `typeof` of every leaf. */
export function leafTypes(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === "object" && value !== null) {
    for (const key of Object.keys(value)) {
      leafTypes((value as Record<string, unknown>)[key], into);
    }
  } else {
    into.add(typeof value);
  }
  return into;
}

/** Runs `python -c script [args]` with optional stdin; its stdout, or a loud failure (exit, hang). */
export async function runPython(
  python: string,
  script: string,
  options: { args?: string[]; stdin?: string; env: Record<string, string> },
): Promise<string> {
  const proc = Bun.spawn([python, "-c", script, ...(options.args ?? [])], {
    stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
    env: options.env,
  });
  const [stdout, code] = await withDeadline(
    Promise.all([new Response(proc.stdout).text(), proc.exited]),
    20_000,
    "python3",
  ).catch((error) => {
    proc.kill();
    throw error;
  });
  if (code !== 0) throw new Error(`python3 exited with ${code}`);
  return stdout;
}
