import type { Config, Mode } from "../config.ts";

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
