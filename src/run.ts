import { availableParallelism } from "node:os";
import type { Catalog } from "./catalog/catalog-types.ts";
import { discoverCatalog } from "./catalog/discover-catalog.ts";
import { formatCatalog } from "./catalog/format-catalog.ts";
import type { Config } from "./config/config-types.ts";
import type { Discovery, FoundConda } from "./discover/discover.ts";
import type { StartedIntrospection } from "./discover/start-introspection.ts";
import { type LineReader, waitForLine } from "./stdio/line-reader.ts";
import { type LineOutput, writeAll } from "./stdio/stdout-output.ts";
import { answerHandshake, type Handover } from "./warm-start/answer-handshake.ts";
import { opensPlainHandshake } from "./warm-start/handshake-shapes.ts";
import type { RecordedCatalog } from "./warm-start/startup-snapshot.ts";

// How long a start that answered the tool list itself waits for the client's first call before
// loading the MCP SDK (which then delays a line that comes later by the SDK's load).
const FIRST_CALL_WAIT_MS = 15;

/** What run() starts from: main.ts's configuration, stdin reader and warm start. */
interface RunInput {
  config: Config;
  version: string;
  log: (line: string) => void;
  /** Opens the stdin reader (once) when serving on stdio; main.ts did if a snapshot answered. */
  openStdin: (() => LineReader) | null;
  /** Standard output when serving on stdio, where main.ts's answers went if a snapshot answered. */
  stdout: LineOutput | null;
  handover: Handover | null;
  /** The conda and catalog key the start already found, if it looked for a snapshot. */
  found: FoundConda | null;
  /** The catalog the startup snapshot recorded, when one was read. */
  recordedCatalog: RecordedCatalog | null;
  /** The introspection main.ts set going first thing, when this start was sure to need it. */
  started: StartedIntrospection | null;
}

/**
 * Makes zod interpret the MCP SDK's schemas instead of compiling each one, with `new Function`,
 * on its first parse: 1 to 3 ms for each kind of message, all of them on the way to the first
 * answers the SDK gives. Interpreted, a first parse takes a fraction of that and every later one
 * stays far under a millisecond for messages of MCP's size. zod reads its configuration from
 * this global (shared by every copy of zod) when a schema is built, so this runs before the SDK
 * loads; run() calls it first, a host embedding the library keeps its own setting.
 */
export function interpretZodSchemas(): void {
  const holder = globalThis as { __zod_globalConfig?: Record<string, unknown> };
  // In place: a zod already loaded keeps the object it found there.
  holder.__zod_globalConfig ??= {};
  holder.__zod_globalConfig.jitless = true;
}

/**
 * The full start-up: discover conda (from the catalog cache when it still holds), build the
 * catalog, then print it (`catalog`) or serve it. On stdio the handshake is answered before the
 * MCP SDK loads: by the start-up answerer from the snapshot (`handover`), else from this
 * catalog; the full server then takes over.
 */
export async function run(input: RunInput): Promise<void> {
  interpretZodSchemas();
  const { config, log } = input;
  let pythonStarted = () => {};
  const started = new Promise<void>((resolve) => {
    pythonStarted = resolve;
  });
  const discovering = discoverCatalog(
    config,
    log,
    input.found,
    pythonStarted,
    input.recordedCatalog,
    input.started,
  );
  if (config.mode === "catalog") {
    const discovered = await discovering;
    await printCatalog(config, discovered);
    await discovered.discovery.cache?.store();
    return;
  }
  // While conda's Python introspects, the modules that prepare serving load; from the cache
  // discovery is done first.
  const fromCache = await Promise.race([
    started.then(() => false),
    discovering.then(
      () => true,
      () => true,
    ),
  ]);
  const stdin = input.openStdin?.() ?? null;
  const stdout = stdin && input.stdout;
  const start = await loadServerStart();
  // While Python runs, what this start does once it answers runs once on a small recorded
  // document, so that it runs warm then. With one core, that would only slow Python down.
  // Imported only here: its recorded document and decoders are of no use to a warm start.
  if (!fromCache && availableParallelism() > 1) {
    try {
      const { rehearseStart } = await import("./warm-start/rehearse-start.ts");
      rehearseStart(config, input.version);
    } catch (error) {
      log(`the start-up rehearsal failed, which only costs speed: ${String(error)}`);
    }
  }
  // On stdio the first line decides, whenever it comes: a plain handshake that no snapshot
  // answered is answered from this start's catalog before the MCP SDK is loaded, anything else
  // is the SDK's to answer. When such a line came already, the SDK loads (building its zod
  // schemas) while Python runs, and checks the lines that came.
  const fromSnapshot = Boolean(input.handover?.answered);
  const early = stdin?.waiting() ?? [];
  const answersHandshake =
    stdin !== null && !fromSnapshot && (early.length === 0 || opensPlainHandshake(early));
  const serveModule = fromCache || answersHandshake ? null : await import("./server/serve.ts");
  if (serveModule && stdin) {
    const { checkInputLine } = await import("./stdio/stdio-line-transport.ts");
    for (const line of stdin.waiting()) checkInputLine(line, stdin.maxLineBytes);
  }
  const { discovery, catalog } = await discovering;
  // SIGTERM and SIGINT end serving cleanly: running calls are aborted, their process trees are
  // gone, then the process exits 0. A second signal gets the default (immediate) behaviour.
  const stop = new AbortController();
  process.once("SIGTERM", () => stop.abort());
  process.once("SIGINT", () => stop.abort());
  const prepared = start.prepareServer({
    config,
    conda: discovery,
    catalog,
    version: input.version,
    log,
    handshakeSource: fromSnapshot ? "snapshot" : "server",
    startupFingerprint: fromSnapshot ? input.handover?.fingerprint : undefined,
  });
  try {
    let handover = input.handover;
    if (answersHandshake && stdin && stdout) {
      const answers = start.composeHandshake(prepared.deps);
      handover = await answerHandshake(answers, stdin, stdout, stop.signal);
      // stdin ended or a signal came first: the answers given are out, nothing is left to do.
      if (handover === null) return;
    }
    let waiting: ReturnType<typeof start.startWaitingCalls> = null;
    if (handover?.answered && stdin) {
      // A call sent right after the tool list may wait unread in the pipe, as nothing here has
      // polled for input since: one turn of the event loop reads it. When this start answered
      // the tool list just now, the client is still reading it, and the SDK's load that comes
      // next blocks input for some 20 ms: its first call, which usually follows at once, is
      // given a moment to come and start before that.
      if (answersHandshake) await waitForLine(stdin, FIRST_CALL_WAIT_MS);
      else await new Promise((resolve) => setImmediate(resolve));
      waiting = start.startWaitingCalls(prepared.deps, stdin.waiting());
    }
    // Their way to conda's spawn is all microtasks: let it run before the imports block.
    if (waiting) await new Promise((resolve) => setImmediate(resolve));
    // A start that answers the handshake itself (no snapshot, or one recorded for another
    // protocol version) records it for the next start; only such a start loads the recorder
    // and the writers it uses, once waiting calls have started.
    const recorder =
      config.http === null && !fromSnapshot
        ? (await import("./warm-start/create-snapshot-recorder.ts")).createSnapshotRecorder(
            { ...input, discovery, catalog },
            handover?.answered,
          )
        : null;
    // What this start answered itself is out: only now is a fresh catalog cache entry written.
    void discovery.cache?.store();
    const { serve } = serveModule ?? (await import("./server/serve.ts"));
    await serve({
      ...input,
      stdin,
      stdout,
      handover,
      prepared,
      waiting,
      stop: stop.signal,
      recorder,
    });
  } finally {
    // However serving ended, no call outlives it: every process tree is gone first.
    prepared.shutdown.abort();
    await prepared.settled();
    await discovery.cache?.store();
  }
}

/**
 * The modules that prepare serving, loaded only once conda's Python runs (or the cache has
 * answered): a cold start spawns Python before spending the time to load them.
 */
async function loadServerStart() {
  const [{ prepareServer }, { startWaitingCalls }, { composeHandshake }] = await Promise.all([
    import("./server/prepare-server.ts"),
    import("./server/start-waiting-calls.ts"),
    import("./warm-start/compose-handshake.ts"),
  ]);
  return {
    prepareServer,
    startWaitingCalls,
    composeHandshake,
  };
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
