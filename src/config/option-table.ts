import { invalidOption } from "../errors.ts";
import { POLICY_STARTUP_OPTIONS } from "../policy/policy-startup-options.ts";
import type { SchemaDetail } from "../schema/build-input-schema.ts";
import { SETUP_CLIENTS, SETUP_SCOPES, type SetupScope } from "../setup/setup-clients.ts";
import type { Command, HttpListen, Settings, StartupOption } from "./config-types.ts";

/** Defaults in one place. */
export const DEFAULTS = {
  timeoutSeconds: 1800,
  maxOutputBytes: 1024 * 1024,
  maxStdinBytes: 1024 * 1024,
  introspectionTimeoutSeconds: 60,
  heartbeatMs: 5000,
} as const;

/** What the command line sets when it names no option: serve over stdio, read-only. */
export const DEFAULT_SETTINGS: Settings = {
  mode: "serve",
  http: null,
  httpAllowRemote: false,
  httpTokenFile: null,
  json: false,
  condaPath: null,
  allowWrite: false,
  allowDestructive: false,
  allowExec: false,
  readOnlyTools: false,
  tools: null,
  timeoutMs: DEFAULTS.timeoutSeconds * 1000,
  maxOutputBytes: DEFAULTS.maxOutputBytes,
  introspectionTimeoutMs: DEFAULTS.introspectionTimeoutSeconds * 1000,
  heartbeatMs: DEFAULTS.heartbeatMs,
  cache: true,
  schemaDetail: "compact",
  setupClient: null,
  setupScope: "user",
  print: false,
};

/** The command words; without one the program serves MCP. */
export const COMMANDS: readonly Command[] = [
  { name: "catalog", mode: "catalog", summary: "print the tools and raw-only commands, then exit" },
  {
    name: "setup",
    mode: "setup",
    summary: `add this server, with the serving options given, to CLIENT's MCP configuration (${SETUP_CLIENTS.map((c) => c.name).join(", ")}), then exit`,
    operand: {
      metavar: "CLIENT",
      choices: SETUP_CLIENTS.map((client) => client.name),
      parse: (word) => ({
        setupClient: SETUP_CLIENTS.find((client) => client.name === word)?.name ?? null,
      }),
    },
  },
];

const MAX_TIMEOUT_SECONDS = 24 * 3600;
const SCHEMA_DETAILS: readonly SchemaDetail[] = ["compact", "full"];

function positiveNumber(flag: string, raw: string, max: number): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > max) {
    throw invalidOption(`${flag} takes a number greater than 0 and at most ${max}`);
  }
  return value;
}

/** A positive number of seconds, at most `max`, in whole milliseconds. */
function milliseconds(flag: string, raw: string, max: number): number {
  return Math.round(positiveNumber(flag, raw, max) * 1000);
}

function setupScope(flag: string, raw: string): SetupScope {
  const scope = SETUP_SCOPES.find((s) => s === raw);
  if (scope === undefined) throw invalidOption(`${flag} takes ${SETUP_SCOPES.join(" or ")}`);
  return scope;
}

function schemaDetail(flag: string, raw: string): SchemaDetail {
  const detail = SCHEMA_DETAILS.find((d) => d === raw);
  if (detail === undefined) throw invalidOption(`${flag} takes ${SCHEMA_DETAILS.join(" or ")}`);
  return detail;
}

/** Every startup option, in the order `--help` shows them; the one place a flag is spelled. */
export const OPTION_TABLE: readonly StartupOption[] = [
  {
    flags: ["--conda"],
    library: { name: "conda" },
    metavar: "PATH",
    help: "conda executable to serve (default: $CONDA_EXE, then conda on PATH)",
    parse: (value) => ({ condaPath: value }),
  },
  ...POLICY_STARTUP_OPTIONS,
  {
    flags: ["--timeout"],
    library: { name: "timeoutSeconds" },
    metavar: "SECONDS",
    help: `longest a conda call may run (default ${DEFAULTS.timeoutSeconds})`,
    parse: (value, flag) => ({ timeoutMs: milliseconds(flag, value, MAX_TIMEOUT_SECONDS) }),
  },
  {
    flags: ["--max-output-bytes"],
    library: { name: "maxOutputBytes" },
    metavar: "N",
    help: `bytes kept from each of stdout and stderr (default ${DEFAULTS.maxOutputBytes})`,
    parse: (value, flag) => ({
      maxOutputBytes: Math.floor(positiveNumber(flag, value, 1024 ** 3)),
    }),
  },
  {
    flags: ["--introspection-timeout"],
    library: { name: "introspectionTimeoutSeconds" },
    metavar: "SECONDS",
    help: `longest conda may take to describe its commands (default ${DEFAULTS.introspectionTimeoutSeconds})`,
    parse: (value, flag) => ({ introspectionTimeoutMs: milliseconds(flag, value, 3600) }),
  },
  {
    flags: ["--progress-interval"],
    library: { name: "progressIntervalSeconds" },
    metavar: "SECONDS",
    help: `seconds between progress notifications while conda runs, for clients that send a progressToken (default ${DEFAULTS.heartbeatMs / 1000})`,
    parse: (value, flag) => ({ heartbeatMs: milliseconds(flag, value, 3600) }),
  },
  {
    flags: ["--no-cache"],
    library: { name: "cache", when: false },
    help: "always introspect conda; never read or write the catalog cache",
    sets: { cache: false },
  },
  {
    flags: ["--schema-detail"],
    library: { name: "schemaDetail" },
    metavar: SCHEMA_DETAILS.join("|"),
    help: "how much each tool definition says: compact (default) or conda's whole help and every bound",
    parse: (value, flag) => ({ schemaDetail: schemaDetail(flag, value) }),
  },
  {
    flags: ["--http"],
    metavar: "[HOST:]PORT",
    help: "serve MCP over Streamable HTTP at http://HOST:PORT/mcp instead of stdio (HOST defaults to 127.0.0.1; PORT 0 picks a free one)",
    parse: (value) => ({ http: parseHttpListen(value) }),
  },
  {
    flags: ["--http-token-file"],
    metavar: "PATH",
    help: "read the bearer token clients must send from this file (default: generate one and print it at startup)",
    parse: (value, flag) => {
      if (value === "") throw invalidOption(`${flag} needs a path`);
      return { httpTokenFile: value };
    },
  },
  {
    flags: ["--http-allow-remote"],
    help: "let --http listen on an address that is not loopback",
    sets: { httpAllowRemote: true },
  },
  { flags: ["--help", "-h"], help: "show this help", sets: { mode: "help" } },
  { flags: ["--version", "-V"], help: "show the version", sets: { mode: "version" } },
  {
    flags: ["--json"],
    command: "catalog",
    help: "print the catalog as JSON",
    sets: { json: true },
  },
  {
    flags: ["--scope"],
    command: "setup",
    metavar: SETUP_SCOPES.join("|"),
    help: "write the user's own configuration file (default) or the project's, under the working directory",
    parse: (value, flag) => ({ setupScope: setupScope(flag, value) }),
  },
  {
    flags: ["--print"],
    command: "setup",
    help: "print the configuration file setup would write, and write nothing",
    sets: { print: true },
  },
];

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const HOST_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;

function isLoopback(host: string): boolean {
  const lower = host.toLowerCase();
  return lower === "localhost" || lower === "::1" || IPV4.exec(lower)?.[1] === "127";
}

/** `PORT`, `HOST:PORT` or `[IPV6]:PORT`; `localhost` binds 127.0.0.1 so the address is definite. */
export function parseHttpListen(raw: string): HttpListen {
  const match = /^(?:(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+)):)?(\d{1,5})$/.exec(raw);
  const port = Number(match?.[3]);
  if (!match || port > 65535) {
    throw invalidOption("--http takes PORT, HOST:PORT or [IPV6]:PORT, with PORT from 0 to 65535");
  }
  const ipv6 = match[1];
  let host = ipv6 ?? match[2] ?? "127.0.0.1";
  const ipv4 = IPV4.exec(host);
  if (ipv4?.slice(1).some((part) => Number(part) > 255)) {
    throw invalidOption("--http has an IPv4 address with a part above 255");
  }
  if (ipv6 === undefined && !ipv4 && !HOST_NAME.test(host)) {
    throw invalidOption("--http has a host that is neither an IP address nor a host name");
  }
  if (host.toLowerCase() === "localhost") host = "127.0.0.1";
  return { host, port, loopback: isLoopback(host) };
}
