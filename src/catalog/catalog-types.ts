import type { RawPreParser } from "../introspection-payload.ts";

/** The JSON type a conda argument's values take. */
export type ValueType = "string" | "integer" | "number";

/** How many values one occurrence of an argument takes (argparse nargs). */
export type Arity =
  | { kind: "one" }
  | { kind: "optional" }
  | { kind: "any" }
  | { kind: "some" }
  | { kind: "exactly"; count: number };

/** A scalar value's JSON type and, when argparse restricts it, its allowed values. */
export interface ValueSpec {
  type: ValueType;
  choices: (string | number)[] | null;
}

/** What a parameter looks like in JSON and how it becomes argv. */
export type ParamShape =
  /** 0-arg store_true/store_false/store_const: `true` passes the option. */
  | { kind: "flag" }
  /** Counting option (`-v`): a non-negative integer, passed that many times. */
  | { kind: "count" }
  /** BooleanOptionalAction: `true` passes `option`, `false` passes `negativeOption`. */
  | { kind: "toggle"; negativeOption: string }
  /** Option taking values; `repeat` for append actions (an array of occurrences). */
  | { kind: "option"; arity: Arity; repeat: boolean; value: ValueSpec }
  /** conda's ExtendConstAction: a list of values; an empty list passes the option alone. */
  | { kind: "extend_const"; value: ValueSpec }
  /** A positional argument. */
  | { kind: "positional"; arity: Arity; value: ValueSpec }
  /**
   * REMAINDER positional or a greedy plugin parser: an opaque list of strings. With `separator`
   * a `--` goes before the items (conda's `run` strips it), out of reach of conda's global
   * pre-parser; otherwise `preParser` names what that pre-parser would take from the items.
   */
  | { kind: "passthrough"; greedy: boolean; separator: boolean; preParser: RawPreParser | null };

/** One typed parameter of a generated tool. */
export interface Param {
  /** JSON property name. */
  name: string;
  /** argparse dest; several params may share one (conda keys them by option string). */
  dest: string;
  /** The option string this program passes (the first long one), or null for positionals. */
  option: string | null;
  optionStrings: string[];
  shape: ParamShape;
  required: boolean;
  description: string;
  /** The deprecation notice of a deprecation-wrapped action, or null. */
  deprecated: string | null;
  /** A default worth showing to a client; conda's NULL sentinel is never one. */
  defaultValue?: unknown;
  /** Index into the command's `exclusiveGroups`, or null. */
  exclusiveGroup: number | null;
}

/**
 * One argparse action of a command as conda declares it, for clients that want every detail
 * the tool definitions leave out (conda://capabilities). Text is redacted like the catalog's.
 */
export interface CommandArgument {
  /** The tool's JSON property for it, or null (hidden, help, or the command is not a tool). */
  property: string | null;
  option_strings: string[];
  dest: string;
  class: string;
  /** The class in its MRO that decided how it is served, or null when none is understood. */
  recognised_as: string | null;
  mro: string[];
  nargs: number | string | null;
  choices: unknown[] | null;
  /** Present unless conda's NULL ("use the configuration"), SUPPRESS or not JSON. */
  default?: unknown;
  metavar: string | string[] | null;
  help: string | null;
  required: boolean;
  hidden: boolean;
  /** The parser's mutually exclusive group it belongs to. */
  exclusive_group: { index: number; required: boolean } | null;
  deprecated: string | null;
}

/** A mutually exclusive group, enforced by the server after schema validation. */
export interface ExclusiveGroup {
  /** Param names. */
  members: string[];
  required: boolean;
}

/** Why a terminal command is not served as a typed tool. */
export type CommandStatus =
  /** Served as a generated, typed tool. */
  | "tool"
  /** Some argument could not be represented: reachable through conda_execute only. */
  | "raw_only"
  /** Deliberately not served: conda's mock `activate`/`deactivate`, and `mcp` (conda-mcp itself). */
  | "excluded";

/** A terminal conda command and how it is served. */
export interface CatalogCommand {
  /** Canonical tokens from the root: `["env", "config", "vars", "set"]`. */
  path: string[];
  /** Alias paths that reach the same parser: `[["uninstall"]]`. */
  aliases: string[][];
  toolName: string | null;
  status: CommandStatus;
  /** Human reason for raw_only and excluded. */
  reason: string | null;
  summary: string;
  description: string;
  /** Options first in declaration order, then positionals in parse order. */
  params: Param[];
  exclusiveGroups: ExclusiveGroup[];
  /** The plugin that registered the command, when it is not built into conda's core parser. */
  plugin: { name: string; distribution: string | null; external: boolean } | null;
  /** Number of hidden (`help=SUPPRESS`) options left out of the schema. */
  hiddenOptions: number;
}

/** A finding about the tree that a client or user may want to know. */
export interface Diagnostic {
  /** The command path it concerns (empty for the whole tree). */
  path: string[];
  level: "info" | "warning";
  message: string;
}

/** Everything the program serves, derived once from the introspected tree. */
export interface Catalog {
  commands: CatalogCommand[];
  diagnostics: Diagnostic[];
}
