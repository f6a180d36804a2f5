import { formatCatalog } from "./catalog/format-catalog.ts";
import type { Config } from "./config.ts";
import type { FoundConda } from "./discover/discover.ts";
import { discoverCatalog } from "./discover-catalog.ts";
import type { LineReader } from "./server/line-reader.ts";
import { serve } from "./server/serve.ts";
import type { Handover } from "./warm-start/answer-from-snapshot.ts";
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
  const { discovery, catalog } = await discoverCatalog(config, log, input.found);
  if (config.mode === "catalog") {
    const header = `conda ${discovery.introspection.conda_version} at ${discovery.executable}`;
    await writeAll(
      process.stdout,
      config.json
        ? `${JSON.stringify({ conda_version: discovery.introspection.conda_version, ...catalog }, null, 2)}\n`
        : formatCatalog(catalog, header),
    );
    return;
  }
  // SIGTERM and SIGINT end serving cleanly: running calls are aborted, their process trees are
  // gone, then the process exits 0. A second signal gets the default (immediate) behaviour.
  const stop = new AbortController();
  process.once("SIGTERM", () => stop.abort());
  process.once("SIGINT", () => stop.abort());
  await serve({ ...input, discovery, catalog, stop: stop.signal });
}
