import { existsSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Catalog } from "../catalog/catalog-types.ts";
import { credentialValues } from "../catalog/credential-values.ts";
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
import { buildCapabilities } from "./build-capabilities.ts";
import { buildToolRegistry } from "./build-tool-registry.ts";
import { CLI_COMMAND_DEFINITION, createCliCommandHandler } from "./create-cli-command-handler.ts";
import type { RunConda, ServerDeps } from "./create-server.ts";

const COMPLETION_DISTRIBUTION = "conda-completion";
// Longest an aborted call takes to end: runProcess's SIGTERM grace, SIGKILL wait and pipe drain.
const SETTLE_MS = 15_000;

/** One conda run a server made, as an embedding host observes it. */
export interface ExecutionEvent {
  /** The tool that was called (`conda_install`, `conda_execute`). */
  tool: string;
  /** The arguments after the conda executable. */
  argv: string[];
  result: ExecutionResult;
  durationMs: number;
}

/** What a server needs beyond the configuration: hooks an embedding host may set. */
export interface PrepareHooks {
  /** Called after each conda run with its argv and result. */
  onExecution?: (event: ExecutionEvent) => void;
  /** Lists only the tools it returns true for, after the startup options' narrowing. */
  filterTools?: (tool: Tool) => boolean;
}

/** A server's dependencies, and the means to end every execution it started. */
export interface PreparedServer {
  deps: ServerDeps;
  /** Aborting it ends every running and queued call; their process trees are killed. */
  shutdown: AbortController;
  /** Resolves once every execution has ended and its tree is gone (within a bound). */
  settled(): Promise<void>;
}

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

/**
 * Everything a server for the discovered conda needs, built once: the listed tools, the
 * capabilities document, the policy and guard facts, and one FIFO execution queue that every
 * session shares. The CLI and the library entry both serve through it.
 */
export function prepareServer(
  input: {
    config: Config;
    discovery: Discovery;
    catalog: Catalog;
    version: string;
    log: (line: string) => void;
    /** Who answered `initialize` on stdio: the startup snapshot or the server. */
    handshakeSource: "snapshot" | "server";
    /** What the listed tools were built from, when that was not this discovery (a handover). */
    startupFingerprint?: string;
  },
  hooks: PrepareHooks = {},
): PreparedServer {
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

  const registry = buildToolRegistry(catalog, {
    allowExec: config.allowExec,
    readOnlyTools: config.readOnlyTools,
    tools: config.tools,
    cliCommandTool: cliCommand ? CLI_COMMAND_DEFINITION : null,
    schemaDetail: config.schemaDetail,
  });
  if (registry.unmatched.length > 0) {
    throw new CondaMcpError(
      `--tools names no such tool or command: ${registry.unmatched.join(", ")}`,
      "INVALID_OPTION",
    );
  }
  const { glossary } = registry;
  const filter = hooks.filterTools;
  const entries = filter ? registry.entries.filter((e) => filter(e.definition)) : registry.entries;

  // Built on first read (it describes every argument of every command), then kept: immutable.
  let capabilities: string | null = null;
  const capabilitiesJson = () => {
    capabilities ??= buildCapabilities({
      serverVersion: input.version,
      targetExecutable: discovery.executable,
      condaVersion: introspection.conda_version,
      fingerprint: discovery.fingerprint,
      catalogSource: discovery.source,
      handshakeSource: input.handshakeSource,
      catalog,
      tree: introspection.tree,
      secretValues: credentialValues(config.env),
      plugins: introspection.external_plugins,
      listedTools: entries.map((e) => e.definition.name),
      policy,
    });
    return capabilities;
  };

  const shutdown = new AbortController();
  const queue = new ExecutionQueue();
  const running = new Set<Promise<ExecutionResult>>();
  // `[executable]`, or `[python, "-m", "conda"]` when CONDA_EXE is the interpreter itself.
  const [command, ...leadingArgs] = discovery.condaArgv as [string, ...string[]];
  const runConda: RunConda = (argv, options) => {
    const started = performance.now();
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
    if (!hooks.onExecution) return execution;
    const observe = hooks.onExecution;
    return execution.then((result) => {
      // A host's observer failing must not fail the call it observes.
      try {
        observe({ tool: options.tool, argv, result, durationMs: performance.now() - started });
      } catch (error) {
        input.log(`onExecution failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      return result;
    });
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
    startupFingerprint: input.startupFingerprint ?? discovery.fingerprint,
    cliCommand,
    log: input.log,
  };

  return {
    deps,
    shutdown,
    settled: () => settle(running),
  };
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
