import { invalidOption } from "./config/invalid-option.ts";
import { parseHttpListen } from "./config/parse-http-listen.ts";
import { POLICY_STARTUP_OPTIONS } from "./policy/policy-startup-options.ts";
import { parseToolList } from "./policy/select-tools.ts";
import type { SchemaDetail } from "./schema/build-input-schema.ts";

/** What the program was asked to do. */
export type Mode = "serve" | "catalog" | "help" | "version";

/** Where `--http [host:]port` listens; `loopback` is false for any address beyond this machine. */
export interface HttpListen {
  /** Address to bind: an IPv4 or IPv6 literal (no brackets) or a host name. */
  readonly host: string;
  /** 0 picks a free port (printed at startup). */
  readonly port: number;
  readonly loopback: boolean;
}

/** Every startup option, validated once; nothing below main.ts reads process.env directly. */
export interface Config {
  readonly mode: Mode;
  /** `--http [host:]port`: serve Streamable HTTP instead of stdio. */
  readonly http: HttpListen | null;
  /** `--http-allow-remote`: let `--http` bind an address that is not loopback. */
  readonly httpAllowRemote: boolean;
  /** `--http-token-file PATH`: the bearer token's file; null generates one per run. */
  readonly httpTokenFile: string | null;
  /** `catalog --json`. */
  readonly json: boolean;
  /** `--conda PATH`; otherwise discovery tries CONDA_EXE and PATH. */
  readonly condaPath: string | null;
  readonly allowWrite: boolean;
  readonly allowDestructive: boolean;
  readonly allowExec: boolean;
  /** List only tools whose class is read. */
  readonly readOnlyTools: boolean;
  /** Allow-list of tool names or command paths (`conda_env_list`, `env list`); null lists all. */
  readonly tools: readonly string[] | null;
  /** Longest a conda call may run. */
  readonly timeoutMs: number;
  /** Bytes kept from each of stdout and stderr; the rest is drained and dropped. */
  readonly maxOutputBytes: number;
  /** Longest stdin a conda_execute call may supply. */
  readonly maxStdinBytes: number;
  /** Longest the target's Python may take to describe its parser. */
  readonly introspectionTimeoutMs: number;
  /** Interval of progress heartbeats while conda runs. */
  readonly heartbeatMs: number;
  /** Read and write the on-disk catalog cache. */
  readonly cache: boolean;
  /** `--schema-detail`: how much each tool definition says (compact by default). */
  readonly schemaDetail: SchemaDetail;
  /** Environment passed to conda and used for discovery. */
  readonly env: Readonly<Record<string, string>>;
  readonly platform: NodeJS.Platform;
  readonly home: string;
  readonly cwd: string;
}

/** Defaults in one place. */
export const DEFAULTS = {
  timeoutSeconds: 1800,
  maxOutputBytes: 1024 * 1024,
  maxStdinBytes: 1024 * 1024,
  introspectionTimeoutSeconds: 60,
  heartbeatMs: 5000,
} as const;

const MAX_TIMEOUT_SECONDS = 24 * 3600;

/** One line per option, for --help and the README. */
export const OPTION_HELP: readonly [string, string][] = [
  ["--conda PATH", "conda executable to serve (default: $CONDA_EXE, then conda on PATH)"],
  ...POLICY_STARTUP_OPTIONS.map((o): [string, string] => [o.usage, o.help]),
  ["--timeout SECONDS", `longest a conda call may run (default ${DEFAULTS.timeoutSeconds})`],
  [
    "--max-output-bytes N",
    `bytes kept from each of stdout and stderr (default ${DEFAULTS.maxOutputBytes})`,
  ],
  [
    "--introspection-timeout SECONDS",
    `longest conda may take to describe its commands (default ${DEFAULTS.introspectionTimeoutSeconds})`,
  ],
  [
    "--progress-interval SECONDS",
    `seconds between progress notifications while conda runs, for clients that send a progressToken (default ${DEFAULTS.heartbeatMs / 1000})`,
  ],
  ["--no-cache", "always introspect conda; never read or write the catalog cache"],
  [
    "--schema-detail compact|full",
    "how much each tool definition says: compact (default) or conda's whole help and every bound",
  ],
  [
    "--http [HOST:]PORT",
    "serve MCP over Streamable HTTP at http://HOST:PORT/mcp instead of stdio (HOST defaults to 127.0.0.1; PORT 0 picks a free one)",
  ],
  [
    "--http-token-file PATH",
    "read the bearer token clients must send from this file (default: generate one and print it at startup)",
  ],
  ["--http-allow-remote", "let --http listen on an address that is not loopback"],
  ["--help", "show this help"],
  ["--version", "show the version"],
];

/** Usage text for `--help`. */
export function usage(version: string): string {
  const width = Math.max(...OPTION_HELP.map(([o]) => o.length)) + 2;
  const lines = OPTION_HELP.map(([option, help]) => `  ${option.padEnd(width)}${help}`);
  return [
    `conda-mcp ${version}: serve your conda to MCP clients over stdio or Streamable HTTP`,
    "",
    "Usage:",
    "  conda-mcp [options]            serve MCP over stdio",
    "  conda-mcp --http PORT [...]    serve MCP over Streamable HTTP on 127.0.0.1:PORT",
    "  conda-mcp catalog [--json]     print the tools and raw-only commands, then exit",
    "",
    "Options:",
    ...lines,
    "",
  ].join("\n");
}

/** Where the program runs: environment, platform, home and working directory. */
export interface HostFacts {
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
  home: string;
  cwd: string;
}

function positiveNumber(option: string, raw: string | undefined, max: number): number {
  const value = raw === undefined ? Number.NaN : Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > max) {
    throw invalidOption(`${option} takes a number greater than 0 and at most ${max}`);
  }
  return value;
}

/** Parses and validates the command line once; a bad option throws naming what to change. */
export function parseConfig(argv: readonly string[], host: HostFacts): Config {
  let mode: Mode = "serve";
  let http: HttpListen | null = null;
  let httpTokenFile: string | null = null;
  const flags = {
    httpAllowRemote: false,
    json: false,
    allowWrite: false,
    allowDestructive: false,
    allowExec: false,
    readOnlyTools: false,
    cache: true,
  };
  let condaPath: string | null = null;
  let tools: string[] | null = null;
  let timeoutSeconds: number = DEFAULTS.timeoutSeconds;
  let maxOutputBytes: number = DEFAULTS.maxOutputBytes;
  let introspectionSeconds: number = DEFAULTS.introspectionTimeoutSeconds;
  let heartbeatMs: number = DEFAULTS.heartbeatMs;
  let schemaDetail: SchemaDetail = "compact";

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [name, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
    const value = (): string => {
      if (inline !== undefined) return inline;
      const next = argv[++i];
      if (next === undefined) throw invalidOption(`${name} needs a value`);
      return next;
    };
    switch (name) {
      case "catalog":
        if (i !== 0) throw invalidOption("catalog must come first");
        mode = "catalog";
        break;
      case "--json":
        flags.json = true;
        break;
      case "--help":
      case "-h":
        mode = "help";
        break;
      case "--version":
      case "-V":
        mode = "version";
        break;
      case "--conda":
        condaPath = value();
        break;
      case "--allow-write":
        flags.allowWrite = true;
        break;
      case "--allow-destructive":
        flags.allowDestructive = true;
        break;
      case "--allow-exec":
        flags.allowExec = true;
        break;
      case "--read-only-tools":
        flags.readOnlyTools = true;
        break;
      case "--tools":
        tools = parseToolList(value());
        if (tools.length === 0) throw invalidOption("--tools needs at least one tool name");
        break;
      case "--timeout":
        timeoutSeconds = positiveNumber(name, value(), MAX_TIMEOUT_SECONDS);
        break;
      case "--max-output-bytes":
        maxOutputBytes = Math.floor(positiveNumber(name, value(), 1024 ** 3));
        break;
      case "--introspection-timeout":
        introspectionSeconds = positiveNumber(name, value(), 3600);
        break;
      case "--progress-interval":
        heartbeatMs = Math.round(positiveNumber(name, value(), 3600) * 1000);
        break;
      case "--no-cache":
        flags.cache = false;
        break;
      case "--schema-detail": {
        const detail = value();
        if (detail !== "compact" && detail !== "full")
          throw invalidOption("--schema-detail takes compact or full");
        schemaDetail = detail;
        break;
      }
      case "--http":
        http = parseHttpListen(value());
        break;
      case "--http-token-file":
        httpTokenFile = value();
        if (httpTokenFile === "") throw invalidOption("--http-token-file needs a path");
        break;
      case "--http-allow-remote":
        flags.httpAllowRemote = true;
        break;
      default:
        // The argument itself is the user's own input on their own terminal: safe to name.
        throw invalidOption(`unknown option ${JSON.stringify(arg.slice(0, 80))}`);
    }
  }
  if (flags.json && mode !== "catalog") throw invalidOption("--json goes with the catalog command");
  if (http === null && (httpTokenFile !== null || flags.httpAllowRemote)) {
    throw invalidOption("--http-token-file and --http-allow-remote go with --http");
  }
  if (http !== null && mode === "catalog")
    throw invalidOption("--http goes with serving, not catalog");
  if (http !== null && !http.loopback && !flags.httpAllowRemote) {
    throw invalidOption(
      `--http ${http.host} is reachable from other machines; use a loopback address (127.0.0.1, [::1]) or add --http-allow-remote if that is intended`,
    );
  }

  const env: Record<string, string> = {};
  for (const [key, val] of Object.entries(host.env)) if (val !== undefined) env[key] = val;

  return {
    mode,
    http,
    httpAllowRemote: flags.httpAllowRemote,
    httpTokenFile,
    json: flags.json,
    condaPath,
    allowWrite: flags.allowWrite || flags.allowDestructive,
    allowDestructive: flags.allowDestructive,
    allowExec: flags.allowExec,
    readOnlyTools: flags.readOnlyTools,
    tools,
    timeoutMs: Math.round(timeoutSeconds * 1000),
    maxOutputBytes,
    maxStdinBytes: DEFAULTS.maxStdinBytes,
    introspectionTimeoutMs: Math.round(introspectionSeconds * 1000),
    heartbeatMs,
    cache: flags.cache,
    schemaDetail,
    env,
    platform: host.platform,
    home: host.home,
    cwd: host.cwd,
  };
}
