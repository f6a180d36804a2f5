import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Catalog } from "../catalog/catalog-types.ts";
import type { Config } from "../config.ts";
import type { DiscoveredConda } from "../installation.ts";
import { LineReader } from "../stdio/line-reader.ts";
import type { Handover } from "../warm-start/answer-from-snapshot.ts";
import type { SnapshotRecorder } from "../warm-start/create-snapshot-recorder.ts";
import { createServer } from "./create-server.ts";
import { prepareServer } from "./prepare-server.ts";
import { serveHttp } from "./serve-http.ts";
import { serveStdio } from "./serve-stdio.ts";

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
 * answerer (`handover`: the messages it handled are replayed), and lets `observer` watch.
 */
export async function serve(input: {
  config: Config;
  conda: DiscoveredConda;
  catalog: Catalog;
  version: string;
  log: (line: string) => void;
  stop: AbortSignal;
  /** The stdin reader main.ts started (lines read so far wait in it); null makes one. */
  stdin: LineReader | null;
  /** What the start-up answerer did before; null when it did not run. */
  handover: Handover | null;
  /** Records the stdio session's handshake for the next start; awaited before returning. */
  recorder: SnapshotRecorder | null;
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
    const snapshot = input.recorder;
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
