import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Config } from "../config/config-types.ts";
import { LineReader } from "../stdio/line-reader.ts";
import { type LineOutput, stdoutOutput } from "../stdio/stdout-output.ts";
import type { Handover } from "../warm-start/answer-handshake.ts";
import type { SnapshotRecorder } from "../warm-start/create-snapshot-recorder.ts";
import { createServer } from "./create-server.ts";
import type { PreparedServer } from "./prepare-server.ts";
import { serveHttp } from "./serve-http.ts";
import { serveStdio } from "./serve-stdio.ts";
import type { WaitingCalls } from "./start-waiting-calls.ts";

function waitForAbort(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/**
 * Serves the prepared server on stdio (until stdin closes) or, with --http, on Streamable HTTP;
 * `stop` (SIGTERM/SIGINT) ends either. Every session shares one policy and one FIFO execution
 * queue; on the way out running calls are aborted and their process trees are gone before this
 * resolves. On stdio it takes over from the start-up answerer (`handover`: the messages it
 * handled are replayed), answers the calls started meanwhile (`waiting`) from their runs, and
 * lets the recorder watch.
 */
export async function serve(input: {
  config: Config;
  prepared: PreparedServer;
  log: (line: string) => void;
  stop: AbortSignal;
  /** The stdin reader main.ts started (lines read so far wait in it); null makes one. */
  stdin: LineReader | null;
  /** The stdout main.ts writes through (the start-up answerer's writes went there); null makes one. */
  stdout: LineOutput | null;
  /** What the start-up answerer did before; null when it did not run. */
  handover: Handover | null;
  /** Calls started from the lines that waited while the SDK loaded (stdio only). */
  waiting: WaitingCalls | null;
  /** Records the stdio session's handshake for the next start; awaited before returning. */
  recorder: SnapshotRecorder | null;
}): Promise<void> {
  const { config, handover } = input;
  const { deps, shutdown, settled } = input.prepared;
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
    const server = createServer(deps, input.waiting);
    const snapshot = input.recorder;
    const stdio = serveStdio(server, shutdown, {
      reader: input.stdin ?? new LineReader(Bun.stdin.stream()),
      output: input.stdout ?? stdoutOutput(),
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
