import { invalidOption } from "../errors.ts";
import { SETUP_CLIENTS } from "../setup/setup-clients.ts";
import type { Config, Settings, StartupOption } from "./config-types.ts";
import { COMMANDS, DEFAULT_SETTINGS, DEFAULTS, OPTION_TABLE } from "./option-table.ts";

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
    const words = [command.name, ...(command.operand ? [command.operand.metavar] : [])];
    return [[...words, ...own.map((o) => `[${optionUsage(o)}]`)].join(" "), command.summary];
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

/** The command word at the start of argv and its operand, if any: the settings and words used. */
function readCommand(argv: readonly string[]): { settings: Partial<Settings>; used: number } {
  const command = COMMANDS.find((c) => c.name === argv[0]);
  if (command === undefined) return { settings: {}, used: 0 };
  const { operand } = command;
  if (operand === undefined) return { settings: { mode: command.mode }, used: 1 };
  const word = argv[1];
  if (word !== undefined && operand.choices.includes(word)) {
    return { settings: { mode: command.mode, ...operand.parse(word) }, used: 2 };
  }
  // A missing operand is refused once every argument is read, so that `setup --help` helps.
  if (word !== undefined && !word.startsWith("-")) {
    throw invalidOption(
      `${command.name} takes ${operand.metavar} (${operand.choices.join(", ")}), not ${JSON.stringify(word.slice(0, 80))}`,
    );
  }
  return { settings: { mode: command.mode }, used: 1 };
}

/** Options that go into a served entry `setup` writes: the library's settings but `--conda`. */
function isServeArg(option: StartupOption): boolean {
  return option.library !== undefined && option.flags[0] !== "--conda";
}

/** Applies each argument's table row in order; returns the settings and the options given. */
function readArgv(argv: readonly string[]): {
  settings: Settings;
  given: Set<StartupOption>;
  serveArgs: string[];
} {
  const command = readCommand(argv);
  let settings: Settings = { ...DEFAULT_SETTINGS, ...command.settings };
  const given = new Set<StartupOption>();
  const serveArgs: string[] = [];
  for (let i = command.used; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (COMMANDS.some((c) => c.name === arg)) throw invalidOption(`${arg} must come first`);
    const [flag, inline] = splitOption(arg);
    const option = OPTIONS_BY_FLAG.get(flag);
    // The argument itself is the user's own input on their own terminal: safe to name.
    if (option === undefined) {
      throw invalidOption(`unknown option ${JSON.stringify(arg.slice(0, 80))}`);
    }
    given.add(option);
    if (option.metavar === undefined) {
      if (inline !== undefined) throw invalidOption(`${flag} takes no value`);
      settings = { ...settings, ...option.sets };
      if (isServeArg(option)) serveArgs.push(option.flags[0]);
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw invalidOption(`${flag} needs a value`);
    settings = { ...settings, ...option.parse(value, flag) };
    if (isServeArg(option)) serveArgs.push(option.flags[0], value);
  }
  return { settings, given, serveArgs };
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
  if (http !== null && (mode === "catalog" || mode === "setup")) {
    throw invalidOption(`--http goes with serving, not ${mode}`);
  }
  const client = SETUP_CLIENTS.find((c) => c.name === settings.setupClient);
  if (mode === "setup" && client === undefined) {
    const names = SETUP_CLIENTS.map((c) => c.name).join(", ");
    throw invalidOption(`setup needs the client right after it: one of ${names}`);
  }
  if (mode === "setup" && settings.setupScope === "project" && client?.projectScope === false) {
    throw invalidOption(
      `${client.name} has no project scope: ${client.label} reads only the user's own file (leave out --scope)`,
    );
  }
  if (http !== null && !http.loopback && !httpAllowRemote) {
    throw invalidOption(
      `--http ${http.host} is reachable from other machines; use a loopback address (127.0.0.1, [::1]) or add --http-allow-remote if that is intended`,
    );
  }
}

/** Parses and validates the command line once; a bad option throws naming what to change. */
export function parseConfig(argv: readonly string[], host: HostFacts): Config {
  const { settings, given, serveArgs } = readArgv(argv);
  checkCombinations(settings, given);
  const env: Record<string, string> = {};
  for (const [key, val] of Object.entries(host.env)) if (val !== undefined) env[key] = val;
  return {
    ...settings,
    maxStdinBytes: DEFAULTS.maxStdinBytes,
    serveArgs,
    env,
    platform: host.platform,
    home: host.home,
    cwd: host.cwd,
  };
}

/** `--name=value` as its name and value (the value may hold `=`); any other argument as itself. */
export function splitOption(arg: string): [string, string | undefined] {
  const equals = arg.indexOf("=");
  return arg.startsWith("--") && equals !== -1
    ? [arg.slice(0, equals), arg.slice(equals + 1)]
    : [arg, undefined];
}
