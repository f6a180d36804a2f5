import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Catalog } from "../catalog/catalog-types.ts";
import { credentialValues } from "../catalog/redact-secrets.ts";
import { locateManifest } from "../completion/locate-manifest.ts";
import type { Config } from "../config/config-types.ts";
import type { DiscoveredConda, Installation } from "../discover/discover.ts";
import { CondaMcpError } from "../errors.ts";
import type { ExecutionResult } from "../result/execution-result.ts";
import { buildCapabilities } from "./build-capabilities.ts";
import { buildToolRegistry, type ToolEntry } from "./build-tool-registry.ts";
import { CLI_COMMAND_DEFINITION, createCliCommandHandler } from "./create-cli-command-handler.ts";
import { createRunConda, type ExecutionEvent, ROLLBACK_GRACE_MS } from "./create-run-conda.ts";
import { createExecuteTool } from "./execute-tool.ts";
import type { ServerDeps } from "./server-deps.ts";

const COMPLETION_DISTRIBUTION = "conda-completion";
// Longest an aborted call takes to end: the rollback grace, the SIGKILL wait and pipe drain.
const SETTLE_MS = ROLLBACK_GRACE_MS + 15_000;
// The fact-finder parses one command line; conda's own start takes well under this.
const FACTS_TIMEOUT_MS = 60_000;

/** What a server is prepared from: the configuration and the discovered conda. */
export interface PrepareInput {
  config: Config;
  conda: DiscoveredConda;
  catalog: Catalog;
  version: string;
  log: (line: string) => void;
  /** Who answered `initialize` on stdio: the startup snapshot or the server. */
  handshakeSource: "snapshot" | "server";
  /** What the listed tools were built from, when that was not this discovery (a handover). */
  startupFingerprint?: string;
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

/**
 * Everything a server for the discovered conda needs, built once: the listed tools, the
 * capabilities document, the policy with its fact-finder, and one FIFO execution queue that every
 * session shares. The CLI and the library entry both serve through it.
 */
export function prepareServer(input: PrepareInput, hooks: PrepareHooks = {}): PreparedServer {
  const { config, catalog } = input;
  const { installation } = input.conda;
  // What must never reach a client, from the server's environment: computed once.
  const secretValues = credentialValues(config.env);
  const policy = {
    allowWrite: config.allowWrite,
    allowDestructive: config.allowDestructive,
    allowExec: config.allowExec,
  };
  const cliCommand = completionHandler(config, installation);
  const executeTool = createExecuteTool({
    maxStdinBytes: config.maxStdinBytes,
    timeoutSeconds: config.timeoutMs / 1000,
  });
  const { entries, glossary } = listedTools(input, executeTool, cliCommand !== null, hooks);
  const shutdown = new AbortController();
  const running = new Set<Promise<ExecutionResult>>();
  const deps: ServerDeps = {
    glossary,
    version: input.version,
    entries,
    commands: catalog.commands,
    capabilitiesJson: capabilitiesReader(input, entries, secretValues, policy),
    policy,
    cwd: config.cwd,
    // The fact-finder and its script load with the first check, which starts a Python anyway.
    findFacts: async (argv, cwd, signal) =>
      (await import("../policy/find-call-facts.ts")).findCallFacts(
        { python: installation.python, argv, cwd, env: config.env, secretValues },
        { platform: config.platform, timeoutMs: FACTS_TIMEOUT_MS, signal },
      ),
    timeoutMs: config.timeoutMs,
    executeTool,
    maxOutputBytes: config.maxOutputBytes,
    runConda: createRunConda({
      config,
      condaArgv: installation.condaArgv,
      shutdown: shutdown.signal,
      running,
      log: input.log,
      onExecution: hooks.onExecution,
    }),
    currentFingerprint: installation.currentFingerprint,
    // What the listed tools were built from: with a handover, the snapshot's discovery.
    startupFingerprint: input.startupFingerprint ?? installation.fingerprint,
    cliCommand,
    log: input.log,
  };
  return { deps, shutdown, settled: () => settle(running) };
}

/** conda_cli_command's handler when conda-completion is installed, else null. */
function completionHandler(config: Config, installation: Installation) {
  const completionDist = installation.plugins.find(
    (p) => p.project_name.toLowerCase() === COMPLETION_DISTRIBUTION,
  );
  if (!completionDist) return null;
  return createCliCommandHandler({
    manifestPath: locateManifest({
      env: config.env,
      platform: config.platform,
      home: config.home,
      pythonCacheDir: installation.completionCacheDir,
      cwd: config.cwd,
    }),
    installedVersion: completionDist.version,
    // Rescanned per call (no Python): a plugin installed since startup makes the manifest stale.
    currentPluginNames: installation.currentPluginNames,
  });
}

/** The tools to list after the startup options and the host's filter; `--tools` must match. */
function listedTools(
  input: PrepareInput,
  executeTool: ReturnType<typeof createExecuteTool>,
  withCliCommand: boolean,
  hooks: PrepareHooks,
) {
  const { config } = input;
  const registry = buildToolRegistry(input.catalog, {
    executeInputSchema: () => executeTool.jsonSchema,
    allowExec: config.allowExec,
    readOnlyTools: config.readOnlyTools,
    tools: config.tools,
    cliCommandTool: withCliCommand ? CLI_COMMAND_DEFINITION : null,
    schemaDetail: config.schemaDetail,
  });
  if (registry.unmatched.length > 0) {
    throw new CondaMcpError(
      `--tools names no such tool or command: ${registry.unmatched.join(", ")}`,
      "INVALID_OPTION",
    );
  }
  const filter = hooks.filterTools;
  const entries = filter ? registry.entries.filter((e) => filter(e.definition)) : registry.entries;
  return { entries, glossary: registry.glossary };
}

/** The capabilities document, built on first read (it describes every argument), then kept. */
function capabilitiesReader(
  input: PrepareInput,
  entries: readonly ToolEntry[],
  secretValues: readonly string[],
  policy: ServerDeps["policy"],
): () => string {
  const { installation } = input.conda;
  let capabilities: string | null = null;
  return () => {
    capabilities ??= buildCapabilities({
      serverVersion: input.version,
      targetExecutable: installation.executable,
      condaVersion: installation.condaVersion,
      fingerprint: installation.fingerprint,
      catalogSource: installation.source,
      handshakeSource: input.handshakeSource,
      catalog: input.catalog,
      tree: input.conda.tree,
      secretValues,
      plugins: installation.plugins,
      listedTools: entries.map((e) => e.name),
      policy,
    });
    return capabilities;
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
