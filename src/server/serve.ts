import { existsSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Catalog } from "../catalog/catalog-types.ts";
import { locateManifest } from "../completion/locate-manifest.ts";
import type { Config } from "../config.ts";
import { computeFingerprint } from "../discover/compute-fingerprint.ts";
import type { Discovery } from "../discover/discover.ts";
import { scanCondaEntryPoints } from "../discover/scan-conda-entry-points.ts";
import { CondaMcpError } from "../errors.ts";
import { ExecutionQueue } from "../execute/execution-queue.ts";
import { runProcess } from "../execute/run-process.ts";
import type { GuardFacts } from "../policy/guard-call.ts";
import type { ExecutionResult } from "../result/execution-result.ts";
import type { Handover } from "../warm-start/answer-from-snapshot.ts";
import { recordHandshake } from "../warm-start/record-handshake.ts";
import { snapshotPlaceFor, writeStartupSnapshot } from "../warm-start/startup-snapshot.ts";
import { buildCapabilities } from "./build-capabilities.ts";
import { buildToolRegistry } from "./build-tool-registry.ts";
import { CLI_COMMAND_DEFINITION, createCliCommandHandler } from "./create-cli-command-handler.ts";
import { createServer, type RunConda, type ServerDeps } from "./create-server.ts";
import { LineReader } from "./line-reader.ts";
import { serveHttp } from "./serve-http.ts";
import { serveStdio } from "./serve-stdio.ts";
import type { TransportObserver } from "./stdio-line-transport.ts";

const COMPLETION_DISTRIBUTION = "conda-completion";
// Longest an aborted call takes to end: runProcess's SIGTERM grace, SIGKILL wait and pipe drain.
const SETTLE_MS = 15_000;

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** What the disaster guards know about this conda installation. */
function guardFactsFor(config: Config, rootPrefix: string, envsDirs: string[]): GuardFacts {
  const isCondaEnvironment = (prefix: string) => isDirectory(join(prefix, "conda-meta"));
  return {
    rootPrefix,
    envsDirs,
    cwd: config.cwd,
    home: config.home,
    isCondaEnvironment,
    resolveNamedEnv: (name) => envsDirs.map((d) => join(d, name)).find(isCondaEnvironment) ?? null,
    pathExists: (path) => existsSync(path),
    realPath: (path) => {
      try {
        return realpathSync(path);
      } catch {
        return null;
      }
    },
  };
}

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
  const { config, discovery, catalog } = input;
  const { introspection } = discovery;
  const policy = {
    allowWrite: config.allowWrite,
    allowDestructive: config.allowDestructive,
    allowExec: config.allowExec,
  };

  const completionDist = introspection.external_plugins.find(
    (p) => p.project_name.toLowerCase() === COMPLETION_DISTRIBUTION,
  );
  const cliCommand = completionDist
    ? createCliCommandHandler({
        manifestPath: locateManifest({
          env: config.env,
          platform: config.platform,
          home: config.home,
          pythonCacheDir: introspection.completion?.cache_dir ?? null,
          cwd: config.cwd,
        }),
        installedVersion: completionDist.version,
        // Rescanned per call (no Python): a plugin installed since startup makes the manifest stale.
        currentPluginNames: () =>
          scanCondaEntryPoints(introspection.site_dirs).flatMap((d) => d.entryPointNames),
      })
    : null;

  const { entries, unmatched, glossary } = buildToolRegistry(catalog, {
    allowExec: config.allowExec,
    readOnlyTools: config.readOnlyTools,
    tools: config.tools,
    cliCommandTool: cliCommand ? CLI_COMMAND_DEFINITION : null,
    schemaDetail: config.schemaDetail,
  });
  if (unmatched.length > 0) {
    throw new CondaMcpError(
      `--tools names no such tool or command: ${unmatched.join(", ")}`,
      "INVALID_OPTION",
    );
  }

  const capabilitiesJson = buildCapabilities({
    serverVersion: input.version,
    targetExecutable: discovery.executable,
    condaVersion: introspection.conda_version,
    fingerprint: discovery.fingerprint,
    catalogSource: discovery.source,
    handshakeSource: input.handover?.answeredInitialize ? "snapshot" : "server",
    catalog,
    plugins: introspection.external_plugins,
    listedTools: entries.map((e) => e.definition.name),
    policy,
  });

  const shutdown = new AbortController();
  const queue = new ExecutionQueue();
  const running = new Set<Promise<ExecutionResult>>();
  // `[executable]`, or `[python, "-m", "conda"]` when CONDA_EXE is the interpreter itself.
  const [command, ...leadingArgs] = discovery.condaArgv as [string, ...string[]];
  const runConda: RunConda = (argv, options) => {
    const execution = queue.run(AbortSignal.any([options.signal, shutdown.signal]), (signal) =>
      runProcess(
        {
          command,
          argv: [...leadingArgs, ...argv],
          cwd: options.cwd ?? config.cwd,
          stdin: options.stdin,
          env: config.env,
        },
        {
          timeoutMs: options.timeoutMs,
          maxOutputBytes: config.maxOutputBytes,
          signal,
          onHeartbeat: options.onHeartbeat,
          heartbeatMs: config.heartbeatMs,
          platform: config.platform,
        },
      ),
    );
    running.add(execution);
    const settled = () => running.delete(execution);
    execution.then(settled, settled);
    return execution;
  };

  const deps: ServerDeps = {
    glossary,
    version: input.version,
    entries,
    commands: catalog.commands,
    capabilitiesJson,
    policy,
    guardFacts: guardFactsFor(config, introspection.root_prefix, introspection.envs_dirs),
    timeoutMs: config.timeoutMs,
    maxStdinBytes: config.maxStdinBytes,
    maxOutputBytes: config.maxOutputBytes,
    runConda,
    currentFingerprint: () =>
      computeFingerprint({
        executable: discovery.executable,
        python: discovery.python,
        siteDirs: introspection.site_dirs,
        condaVersion: introspection.conda_version,
      }),
    // What the listed tools were built from: with a handover, the snapshot's discovery.
    startupFingerprint: input.handover?.fingerprint ?? discovery.fingerprint,
    cliCommand,
    log: input.log,
  };

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
    const { handover } = input;
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
    await settle(running);
    // A macrotask later the aborted calls have written their `cancelled` answers.
    await Bun.sleep(0);
    await server.close().catch(() => {});
    await snapshot?.written();
  }
  shutdown.abort();
  await settle(running);
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

/** Waits, within SETTLE_MS, until every execution has ended and its process tree is gone. */
async function settle(running: Set<Promise<ExecutionResult>>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, SETTLE_MS);
  });
  // The timer is cleared so that nothing keeps the process alive once the calls have settled.
  await Promise.race([Promise.allSettled(running), limit]).finally(() => clearTimeout(timer));
}
