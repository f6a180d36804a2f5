import { existsSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Catalog } from "../catalog/catalog-types.ts";
import { locateManifest } from "../completion/locate-manifest.ts";
import type { Config } from "../config.ts";
import type { Discovery } from "../discover/discover.ts";
import { computeFingerprint } from "../discover/compute-fingerprint.ts";
import { scanCondaEntryPoints } from "../discover/scan-conda-entry-points.ts";
import { CondaMcpError } from "../errors.ts";
import { ExecutionQueue } from "../execute/execution-queue.ts";
import { runProcess } from "../execute/run-process.ts";
import type { GuardFacts } from "../policy/guard-call.ts";
import { buildCapabilities } from "./build-capabilities.ts";
import { buildToolRegistry } from "./build-tool-registry.ts";
import { CLI_COMMAND_DEFINITION, createCliCommandHandler } from "./create-cli-command-handler.ts";
import { createServer, type RunConda } from "./create-server.ts";
import { serveStdio } from "./serve-stdio.ts";

const COMPLETION_DISTRIBUTION = "conda-completion";

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

/** Builds the server from the discovered conda and serves it on stdio until stdin closes. */
export async function serve(input: {
  config: Config;
  discovery: Discovery;
  catalog: Catalog;
  version: string;
  log: (line: string) => void;
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
        currentPluginNames: async () =>
          (await scanCondaEntryPoints(introspection.site_dirs)).flatMap((d) => d.entryPointNames),
      })
    : null;

  const { entries, unmatched } = buildToolRegistry(catalog, {
    allowExec: config.allowExec,
    readOnlyTools: config.readOnlyTools,
    tools: config.tools,
    cliCommandTool: cliCommand ? CLI_COMMAND_DEFINITION : null,
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
    catalog,
    plugins: introspection.external_plugins,
    listedTools: entries.map((e) => e.definition.name),
    policy,
  });

  const shutdown = new AbortController();
  const queue = new ExecutionQueue();
  const runConda: RunConda = (argv, options) =>
    queue.run(AbortSignal.any([options.signal, shutdown.signal]), (signal) =>
      runProcess(
        {
          command: discovery.executable,
          argv,
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

  const server = createServer({
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
    startupFingerprint: discovery.fingerprint,
    cliCommand,
    log: input.log,
  });
  await serveStdio(server, shutdown);
}
