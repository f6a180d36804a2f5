import { COMMANDS } from "./config/commands.ts";
import { DEFAULT_SETTINGS, DEFAULTS } from "./config/defaults.ts";
import { invalidOption } from "./config/invalid-option.ts";
import { OPTION_TABLE } from "./config/option-table.ts";
import type { Settings, StartupOption } from "./config/startup-option.ts";
import type { SchemaDetail } from "./schema/build-input-schema.ts";

export { DEFAULTS };

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

function optionUsage(option: StartupOption): string {
  const [flag] = option.flags;
  return option.metavar === undefined ? flag : `${flag} ${option.metavar}`;
}

/** One line per option, for --help and the README. */
export const OPTION_HELP: readonly [string, string][] = OPTION_TABLE.filter(
  (option) => option.command === undefined,
).map((option) => [optionUsage(option), option.help]);

/** How to serve, then one line per command with the options that go only with it. */
const SYNOPSES: readonly [string, string][] = [
  ["[options]", "serve MCP over stdio"],
  ["--http PORT [...]", "serve MCP over Streamable HTTP on 127.0.0.1:PORT"],
  ...COMMANDS.map((command): [string, string] => {
    const own = OPTION_TABLE.filter((option) => option.command === command.mode);
    return [[command.name, ...own.map((o) => `[${optionUsage(o)}]`)].join(" "), command.summary];
  }),
];

function columns(rows: readonly [string, string][], prefix: string, gap: number): string[] {
  const width = Math.max(...rows.map(([left]) => left.length)) + gap;
  return rows.map(([left, right]) => `${prefix}${left.padEnd(width)}${right}`);
}

/** Usage text for `--help`. */
export function usage(version: string): string {
  return [
    `conda-mcp ${version}: serve your conda to MCP clients over stdio or Streamable HTTP`,
    "",
    "Usage:",
    ...columns(SYNOPSES, "  conda-mcp ", 4),
    "",
    "Options:",
    ...columns(OPTION_HELP, "  ", 2),
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

const OPTIONS_BY_FLAG = new Map(
  OPTION_TABLE.flatMap((option) => option.flags.map((flag) => [flag, option] as const)),
);

/** `--name=value` is `--name value`; a short flag or a word never carries a value. */
function splitInline(arg: string): [string, string | undefined] {
  const equals = arg.indexOf("=");
  return arg.startsWith("--") && equals !== -1
    ? [arg.slice(0, equals), arg.slice(equals + 1)]
    : [arg, undefined];
}

/** Applies each argument's table row in order; returns the settings and the options given. */
function readArgv(argv: readonly string[]): { settings: Settings; given: Set<StartupOption> } {
  let settings = DEFAULT_SETTINGS;
  const given = new Set<StartupOption>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const command = COMMANDS.find((c) => c.name === arg);
    if (command !== undefined) {
      if (i !== 0) throw invalidOption(`${arg} must come first`);
      settings = { ...settings, mode: command.mode };
      continue;
    }
    const [flag, inline] = splitInline(arg);
    const option = OPTIONS_BY_FLAG.get(flag);
    // The argument itself is the user's own input on their own terminal: safe to name.
    if (option === undefined) {
      throw invalidOption(`unknown option ${JSON.stringify(arg.slice(0, 80))}`);
    }
    given.add(option);
    if (option.metavar === undefined) {
      if (inline !== undefined) throw invalidOption(`${flag} takes no value`);
      settings = { ...settings, ...option.sets };
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw invalidOption(`${flag} needs a value`);
    settings = { ...settings, ...option.parse(value, flag) };
  }
  return { settings, given };
}

/** Refuses options that contradict each other, once every argument is read. */
function checkCombinations(settings: Settings, given: ReadonlySet<StartupOption>): void {
  for (const option of given) {
    if (option.command !== undefined && option.command !== settings.mode) {
      throw invalidOption(`${option.flags[0]} goes with the ${option.command} command`);
    }
  }
  const { http, httpTokenFile, httpAllowRemote, mode } = settings;
  if (http === null && (httpTokenFile !== null || httpAllowRemote)) {
    throw invalidOption("--http-token-file and --http-allow-remote go with --http");
  }
  if (http !== null && mode === "catalog") {
    throw invalidOption("--http goes with serving, not catalog");
  }
  if (http !== null && !http.loopback && !httpAllowRemote) {
    throw invalidOption(
      `--http ${http.host} is reachable from other machines; use a loopback address (127.0.0.1, [::1]) or add --http-allow-remote if that is intended`,
    );
  }
}

/** Parses and validates the command line once; a bad option throws naming what to change. */
export function parseConfig(argv: readonly string[], host: HostFacts): Config {
  const { settings, given } = readArgv(argv);
  checkCombinations(settings, given);
  const env: Record<string, string> = {};
  for (const [key, val] of Object.entries(host.env)) if (val !== undefined) env[key] = val;
  return {
    ...settings,
    maxStdinBytes: DEFAULTS.maxStdinBytes,
    env,
    platform: host.platform,
    home: host.home,
    cwd: host.cwd,
  };
}
