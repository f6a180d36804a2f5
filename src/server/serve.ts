import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Catalog } from "../catalog/catalog-types.ts";
import type { Config } from "../config.ts";
import type { Discovery } from "../discover/discover.ts";
import type { Handover } from "../warm-start/answer-from-snapshot.ts";
import { recordHandshake } from "../warm-start/record-handshake.ts";
import { snapshotPlaceFor, writeStartupSnapshot } from "../warm-start/startup-snapshot.ts";
import { createServer } from "./create-server.ts";
import { LineReader } from "./line-reader.ts";
import { prepareServer } from "./prepare-server.ts";
import { serveHttp } from "./serve-http.ts";
import { serveStdio } from "./serve-stdio.ts";
import type { TransportObserver } from "./stdio-line-transport.ts";

function waitForAbort(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/**
 * Builds the server's deps once from the discovered conda and serves them on stdio (until stdin
 * closes) or, with --http, on Streamable HTTP; `stop` (SIGTERM/SIGINT) ends either. Every session
 * shares one policy and one FIFO execution queue; on the way out running calls are aborted and
 * their process trees are gone before this resolves. On stdio it takes over from the start-up
 * answerer (`handover`), or else records its handshake answers as the next start's snapshot.
 */
export async function serve(input: {
  config: Config;
  discovery: Discovery;
  catalog: Catalog;
  version: string;
  log: (line: string) => void;
  stop: AbortSignal;
  /** The stdin reader main.ts started (lines read so far wait in it); null makes one. */
  stdin: LineReader | null;
  handover: Handover | null;
}): Promise<void> {
  const { config, handover } = input;
  const { deps, shutdown, settled } = prepareServer({
    ...input,
    handshakeSource: handover?.answeredInitialize ? "snapshot" : "server",
    startupFingerprint: handover?.fingerprint,
  });
  // The same signal ends serving and aborts every execution: running trees are killed and the
  // calls answer `cancelled`, which the HTTP transport still delivers before closing sessions.
  if (input.stop.aborted) shutdown.abort();
  else input.stop.addEventListener("abort", () => shutdown.abort(), { once: true });

  if (config.http !== null) {
    await serveHttp({
      listen: config.http,
      tokenFile: config.httpTokenFile,
      createSessionServer: () => createServer(deps),
      stop: input.stop,
      platform: config.platform,
      log: input.log,
    });
  } else {
    const server = createServer(deps);
    // A server that answers the handshake itself (no snapshot, or one recorded for another
    // protocol version) records it for the next start.
    const snapshot = handover?.answeredInitialize ? null : snapshotRecorder(input);
    const stdio = serveStdio(server, shutdown, {
      reader: input.stdin ?? new LineReader(process.stdin),
      // Only plain handshake messages are handed over (see handshake-shapes.ts).
      replay: (handover?.replay ?? []) as JSONRPCMessage[],
      observer: snapshot?.observer,
    });
    await Promise.race([stdio, waitForAbort(input.stop)]);
    await settled();
    // A macrotask later the aborted calls have written their `cancelled` answers.
    await Bun.sleep(0);
    await server.close().catch(() => {});
    await snapshot?.written();
  }
  shutdown.abort();
  await settled();
}

/**
 * Watches a stdio session and, once the server has answered a plain initialize and tools/list,
 * stores those answers as the startup snapshot (see warm-start/); null without a catalog cache.
 */
function snapshotRecorder(input: {
  config: Config;
  discovery: Discovery;
  version: string;
  log: (line: string) => void;
}): { observer: TransportObserver; written: () => Promise<void> } | null {
  const { config, discovery } = input;
  const cache = discovery.cache;
  if (cache === null) return null;
  const place = snapshotPlaceFor(
    config,
    { executable: discovery.executable, catalogKey: cache.key },
    input.version,
    input.log,
  );
  if (place === null) return null;
  let written: Promise<void> = Promise.resolve();
  const observer = recordHandshake((handshake) => {
    written = writeStartupSnapshot(place, { stamp: cache.stamp, ...handshake });
  });
  return { observer, written: () => written };
}
