import { CondaMcpError } from "./errors.ts";
import { POLICY_STARTUP_OPTIONS } from "./policy/policy-startup-options.ts";
import { parseToolList } from "./policy/select-tools.ts";

/** What the program was asked to do. */
export type Mode = "serve" | "catalog" | "help" | "version";

/** Every startup option, validated once; nothing below main.ts reads process.env directly. */
export interface Config {
  readonly mode: Mode;
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
  ["--help", "show this help"],
  ["--version", "show the version"],
];

/** Usage text for `--help`. */
export function usage(version: string): string {
  const width = Math.max(...OPTION_HELP.map(([o]) => o.length)) + 2;
  const lines = OPTION_HELP.map(([option, help]) => `  ${option.padEnd(width)}${help}`);
  return [
    `conda-mcp ${version}: serve your conda to MCP clients over stdio`,
    "",
    "Usage:",
    "  conda-mcp [options]            serve MCP over stdio",
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

function invalid(message: string): CondaMcpError {
  return new CondaMcpError(`${message} (see conda-mcp --help)`, "INVALID_OPTION");
}

function positiveNumber(option: string, raw: string | undefined, max: number): number {
  const value = raw === undefined ? Number.NaN : Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > max) {
    throw invalid(`${option} takes a number greater than 0 and at most ${max}`);
  }
  return value;
}

/** Parses and validates the command line once; a bad option throws naming what to change. */
export function parseConfig(argv: readonly string[], host: HostFacts): Config {
  let mode: Mode = "serve";
  const flags = {
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

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [name, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
    const value = (): string => {
      if (inline !== undefined) return inline;
      const next = argv[++i];
      if (next === undefined) throw invalid(`${name} needs a value`);
      return next;
    };
    switch (name) {
      case "catalog":
        if (i !== 0) throw invalid("catalog must come first");
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
        if (tools.length === 0) throw invalid("--tools needs at least one tool name");
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
      default:
        // The argument itself is the user's own input on their own terminal: safe to name.
        throw invalid(`unknown option ${JSON.stringify(arg.slice(0, 80))}`);
    }
  }
  if (flags.json && mode !== "catalog") throw invalid("--json goes with the catalog command");

  const env: Record<string, string> = {};
  for (const [key, val] of Object.entries(host.env)) if (val !== undefined) env[key] = val;

  return {
    mode,
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
    env,
    platform: host.platform,
    home: host.home,
    cwd: host.cwd,
  };
}
