import type { SchemaDetail } from "../schema/build-input-schema.ts";
import type { SetupClient, SetupScope } from "../setup/setup-clients.ts";

/** What the program was asked to do. */
export type Mode = "serve" | "catalog" | "setup" | "help" | "version";

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
  /** `setup CLIENT`: the client whose MCP configuration file setup writes. */
  readonly setupClient: SetupClient | null;
  /** `setup --scope`: the user's own file (default) or the project's, under `cwd`. */
  readonly setupScope: SetupScope;
  /** `setup --print`: print the file setup would write instead of writing it. */
  readonly print: boolean;
  /**
   * The serving options given (those the library entry also takes, but `--conda`), as
   * `--flag [value]` in order: what `setup` writes into the client's entry.
   */
  readonly serveArgs: readonly string[];
  /** Environment passed to conda and used for discovery. */
  readonly env: Readonly<Record<string, string>>;
  readonly platform: NodeJS.Platform;
  readonly home: string;
  readonly cwd: string;
}

/** The Config fields the command line sets; the rest come from the host and DEFAULTS. */
export type Settings = Omit<
  Config,
  "env" | "platform" | "home" | "cwd" | "maxStdinBytes" | "serveArgs"
>;

interface OptionBase {
  /** Its spellings; `--help` shows the first. */
  readonly flags: readonly [string, ...string[]];
  /** Its line in `--help`. */
  readonly help: string;
  /** The mode it goes with (`catalog --json`); without one it goes with any. */
  readonly command?: Mode;
  /**
   * The library entry's setting that stands for it (`createCondaMcpServer({ allowWrite: true })`);
   * a flag is given when the setting has the value `when` (default true).
   */
  readonly library?: { readonly name: string; readonly when?: boolean };
}

/** An option that takes no value (`--no-cache`), and the settings it sets. */
export interface FlagOption extends OptionBase {
  readonly metavar?: undefined;
  readonly sets: Partial<Settings>;
}

/** An option that takes a value (`--timeout SECONDS`, `--timeout=SECONDS`). */
export interface ValueOption extends OptionBase {
  /** How `--help` names the value. */
  readonly metavar: string;
  /** The settings the value sets; throws `invalidOption` naming `flag` (the spelling given). */
  readonly parse: (value: string, flag: string) => Partial<Settings>;
}

/** One row of the option table, which drives parsing, validation and `--help`. */
export type StartupOption = FlagOption | ValueOption;

/** A word that must come first on the command line (`catalog`), and the mode it selects. */
export interface Command {
  readonly name: string;
  readonly mode: Mode;
  /** Its line under `Usage:` in `--help`. */
  readonly summary: string;
  /** A word that must follow it (`setup cursor`): how `--help` names it, the words it may be. */
  readonly operand?: {
    readonly metavar: string;
    readonly choices: readonly string[];
    readonly parse: (word: string) => Partial<Settings>;
  };
}
