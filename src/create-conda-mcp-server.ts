import { homedir } from "node:os";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import packageJson from "../package.json" with { type: "json" };
import { discoverCatalog } from "./catalog/discover-catalog.ts";
import { OPTION_TABLE } from "./config/option-table.ts";
import { parseConfig } from "./config/parse-config.ts";
import type { SchemaDetail } from "./schema/build-input-schema.ts";
import type { ExecutionEvent } from "./server/create-run-conda.ts";
import { createServer } from "./server/create-server.ts";
import { prepareServer } from "./server/prepare-server.ts";

export type { ExecutionEvent };

// Processes are spawned with Bun.spawn (process groups, capped pipes): the library needs Bun.
if (typeof Bun === "undefined") {
  throw new Error(
    "conda-mcp's library entry runs on Bun (https://bun.sh); Node.js is not supported",
  );
}

/**
 * The command line's settings as an object; each field is checked exactly as its startup
 * option is (see `conda-mcp --help`), with the same messages.
 */
export interface CondaMcpServerOptions {
  /** `--conda`: a conda executable or prefix; otherwise `env.CONDA_EXE`, then `conda` on PATH. */
  conda?: string;
  allowWrite?: boolean;
  allowDestructive?: boolean;
  allowExec?: boolean;
  readOnlyTools?: boolean;
  /** `--tools`: tool names or command paths (`conda_info`, `env list`). */
  tools?: string[];
  timeoutSeconds?: number;
  maxOutputBytes?: number;
  introspectionTimeoutSeconds?: number;
  progressIntervalSeconds?: number;
  /** Use the catalog cache (default true); false is `--no-cache`. */
  cache?: boolean;
  schemaDetail?: SchemaDetail;
  /** The environment conda runs with (default: this process's). */
  env?: Record<string, string | undefined>;
  /** Working directory of conda calls without their own (default: this process's). */
  cwd?: string;
  /** The user's home, for the caches and conda's configuration (default: os.homedir()). */
  home?: string;
  /** Called after each conda run with the tool, argv, result and duration. */
  onExecution?: (event: ExecutionEvent) => void;
  /** Lists only the tools this returns true for (after the options above narrowed them). */
  filterTools?: (tool: Tool) => boolean;
  /** Where startup diagnostics go (default: stderr). */
  log?: (line: string) => void;
}

/** A served conda: an SDK Server to connect to any transport, and how to end it. */
export interface CondaMcpServer {
  server: Server;
  /** The `conda://capabilities` document, parsed. */
  capabilities: Record<string, unknown>;
  /** Cancels running calls (their process trees are killed), waits for them, closes the server. */
  close(): Promise<void>;
}

/** The startup options the settings stand for (see the option table), so that parseConfig checks them. */
function optionsToArgv(options: CondaMcpServerOptions): string[] {
  const settings: Record<string, unknown> = { ...options };
  return OPTION_TABLE.flatMap((option) => {
    const given = option.library && settings[option.library.name];
    if (option.library === undefined || given === undefined) return [];
    if (option.metavar === undefined)
      return given === (option.library.when ?? true) ? [option.flags[0]] : [];
    return [option.flags[0], Array.isArray(given) ? given.join(",") : String(given)];
  });
}

/**
 * Serves a conda from a TypeScript host: finds conda, asks its Python for the parser tree and
 * returns an MCP `Server` with the same tools, policy, guards and results as the executable.
 * Connect it to any transport (`server.connect(transport)`), and `close()` it when done.
 * Throws a CondaMcpError for invalid settings or a conda that cannot be served.
 */
export async function createCondaMcpServer(
  options: CondaMcpServerOptions = {},
): Promise<CondaMcpServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`conda-mcp: ${line}\n`));
  const config = parseConfig(optionsToArgv(options), {
    env: options.env ?? process.env,
    platform: process.platform,
    home: options.home ?? homedir(),
    cwd: options.cwd ?? process.cwd(),
  });
  const { discovery, catalog } = await discoverCatalog(config, log);
  // A fresh catalog cache entry is written while the server is made.
  const stored = discovery.cache?.store();
  const prepared = prepareServer(
    {
      config,
      conda: discovery,
      catalog,
      version: packageJson.version,
      log,
      handshakeSource: "server",
    },
    { onExecution: options.onExecution, filterTools: options.filterTools },
  );
  const server = createServer(prepared.deps);
  return {
    server,
    capabilities: JSON.parse(prepared.deps.capabilitiesJson()),
    close: async () => {
      prepared.shutdown.abort();
      await prepared.settled();
      await server.close().catch(() => {});
      await stored;
    },
  };
}
