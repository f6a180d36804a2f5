/**
 * The parts of conda-completion 0.3's `completion.msgpack` that the program reads, after
 * validation. Every keyed map is a null-prototype object whose keys came from the file, so a
 * key such as `__proto__` or `constructor` is an own property and never reaches a prototype;
 * look keys up with `Object.hasOwn` only. Unknown keys of the file are dropped, and so is
 * `package_names` (a package cache this program never returns).
 */

/** A map read from the manifest: null-prototype, own keys only. */
export type ManifestDict<T> = Readonly<Record<string, T>>;

/** One option of a command, keyed in its command by its first long flag. Empty fields are absent. */
export interface ManifestOption {
  short?: string;
  choices?: string[];
  /** argparse nargs as a string: `"0"`, `"?"`, `"*"`, `"+"`, `"2"`, `"..."`. */
  nargs?: string;
  /** A built-in completion type (`env_name`, `directory`, ...) or a `runtime_sources` name. */
  completion_type?: string;
  description?: string;
  metavar?: string;
  /** Python `str()` of the argparse default (`"Null"` is conda's "use the configuration"). */
  default?: string;
  required?: boolean;
  /** The argparse argument group's title. */
  group?: string;
}

/** A context rule: use `sources` once all of `when_options` appeared earlier on the line. */
export interface ManifestCompletionRule {
  sources?: string[];
  when_options?: string[];
}

/** A positional's compound completion: default sources plus ordered rules. */
export interface ManifestCompletion {
  sources?: string[];
  rules?: ManifestCompletionRule[];
}

/** One positional argument, in declaration order. */
export interface ManifestPositional {
  name: string;
  choices?: string[];
  nargs?: string;
  completion_type?: string;
  completion?: ManifestCompletion;
  description?: string;
  metavar?: string;
}

/** One command node; subparser aliases are separate keys holding a copied subtree. */
export interface ManifestCommand {
  summary?: string;
  options: ManifestDict<ManifestOption>;
  positionals: ManifestPositional[];
  subcommands: ManifestDict<ManifestCommand>;
  /** Mutually exclusive options, each named by its first declared option string. */
  exclusive_groups: string[][];
}

/** An executable alias (`cx`) that stands for a command path (`["exec"]`). */
export interface ManifestAlias {
  target: string[];
  description?: string;
}

/**
 * A plugin-defined runtime candidate source. Integers beyond ±(2^53 − 1) are kept exactly as
 * decimal strings, never as BigInt or a rounded number.
 */
export interface ManifestRuntimeSource {
  kind?: string;
  description?: string;
  group?: string;
  env_var?: string;
  env_suffix?: string[];
  home_suffix?: string[];
  entry_type?: string;
  strip_suffix?: string;
  max_entries?: number | string;
}

/** A validated conda-completion manifest (file format `version` 1, as written by 0.2 and 0.3). */
export interface CompletionManifest {
  version: 1;
  /** ISO 8601 generation time, or null when the file has none. */
  generated_at: string | null;
  /** Hash of the plugin entry-point names at generation time, or null when the file has none. */
  plugin_hash: string | null;
  root_options: ManifestDict<ManifestOption>;
  commands: ManifestDict<ManifestCommand>;
  aliases: ManifestDict<ManifestAlias>;
  runtime_sources: ManifestDict<ManifestRuntimeSource>;
}
