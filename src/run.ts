import type { Catalog } from "./catalog/catalog-types.ts";
import { formatCatalog } from "./catalog/format-catalog.ts";
import type { Config } from "./config.ts";
import type { Discovery, FoundConda } from "./discover/discover.ts";
import { discoverCatalog } from "./discover-catalog.ts";
import type { LineReader } from "./stdio/line-reader.ts";
import type { Handover } from "./warm-start/answer-from-snapshot.ts";
import { createSnapshotRecorder } from "./warm-start/create-snapshot-recorder.ts";
import { writeAll } from "./write-all.ts";

/**
 * The full start-up: discover conda (from the catalog cache when it still holds), build the
 * catalog, then print it (`catalog`) or serve it, taking over from the start-up answerer when
 * it answered the handshake (`handover`).
 */
export async function run(input: {
  config: Config;
  version: string;
  log: (line: string) => void;
  /** The stdin reader when serving on stdio. */
  stdin: LineReader | null;
  handover: Handover | null;
  /** The conda and catalog key the start already found, if it looked for a snapshot. */
  found: FoundConda | null;
}): Promise<void> {
  const { config, log } = input;
  let pythonStarted = () => {};
  const started = new Promise<void>((resolve) => {
    pythonStarted = resolve;
  });
  const discovering = discoverCatalog(config, log, input.found, pythonStarted);
  if (config.mode === "catalog") {
    const discovered = await discovering;
    await printCatalog(config, discovered);
    await discovered.discovery.cache?.written;
    return;
  }
  // The server's modules (the MCP SDK builds its zod schemas) load while conda's Python works.
  await Promise.race([started, discovering.catch(() => {})]);
  const { serve } = await import("./server/serve.ts");
  const { discovery, catalog } = await discovering;
  // SIGTERM and SIGINT end serving cleanly: running calls are aborted, their process trees are
  // gone, then the process exits 0. A second signal gets the default (immediate) behaviour.
  const stop = new AbortController();
  process.once("SIGTERM", () => stop.abort());
  process.once("SIGINT", () => stop.abort());
  // A server that answers the handshake itself (no snapshot, or one recorded for another
  // protocol version) records it for the next start.
  const recorder =
    config.http === null && !input.handover?.answeredInitialize
      ? createSnapshotRecorder({ ...input, discovery })
      : null;
  await serve({ ...input, conda: discovery, catalog, stop: stop.signal, recorder });
  await discovery.cache?.written;
}

/** `catalog`: what would be served, as text or (`--json`) as the catalog document. */
async function printCatalog(
  config: Config,
  { discovery, catalog }: { discovery: Discovery; catalog: Catalog },
): Promise<void> {
  const { condaVersion, executable } = discovery.installation;
  await writeAll(
    process.stdout,
    config.json
      ? `${JSON.stringify({ conda_version: condaVersion, ...catalog }, null, 2)}\n`
      : formatCatalog(catalog, `conda ${condaVersion} at ${executable}`),
  );
}
