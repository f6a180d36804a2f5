/**
 * The argparse tree exactly as the introspection script prints it. The shape is the one of
 * `shared/reference/conda-26.7-parser-tree.json`, so a recorded tree and a live one feed the
 * same catalog code. Only the keys the program reads are typed; Python may print more.
 */

/** One argparse action, described without executing it. */
export interface RawAction {
  /** Qualified class name, e.g. `argparse._StoreTrueAction` or `conda.cli.helpers.LazyChoicesAction`. */
  class: string;
  /** Qualified names of the class's MRO, most derived first. */
  mro: string[];
  option_strings: string[];
  positional: boolean;
  dest: string;
  /** argparse nargs: null, an integer, or one of `?`, `*`, `+`, `...` (REMAINDER), `A...` (PARSER). */
  nargs: number | string | null;
  /** The const, when JSON-representable; otherwise null (see const_repr). */
  const: unknown;
  const_repr: string;
  /** The default, when JSON-representable and not a sentinel; otherwise null. */
  default: unknown;
  default_repr: string;
  default_is_suppress: boolean;
  /** conda's NULL sentinel: "not given, use the configuration". Never shown as a default. */
  default_is_conda_NULL: boolean;
  /** `type=` callable's short name (`int`, `float`, `comma_separated_stripped`), or null. */
  type: string | null;
  type_qualname: string | null;
  /** Choices resolved at introspection time (lazy choices included), or null. */
  choices: unknown[] | null;
  choices_kind: string | null;
  required: boolean;
  help: string | null;
  /** True for `help=argparse.SUPPRESS`. */
  help_suppressed: boolean;
  metavar: string | string[] | null;
  argument_group: string | null;
  mutually_exclusive_group: { index: number; required: boolean } | null;
  /** Present on conda's deprecation-wrapped action classes. */
  deprecated: { message: string; category: string; wrapped_action: string } | null;
  /** Present on `_SubParsersAction` (and subclasses). */
  subparsers?: { required: boolean; dest: string | null; names: string[] };
}

/** A parser's mutually exclusive group, naming its members by their first option string. */
export interface RawExclusiveGroup {
  index: number;
  required: boolean;
  /** Members by option string for options, by dest for positionals. */
  actions: string[];
}

/** The subcommand plugin that registered a parser, if any. */
export interface RawPluginInfo {
  name: string;
  summary?: string | null;
  plugin_name?: string | null;
  distribution?: string | null;
  external?: boolean;
}

/** One parser (the root, or a subcommand at any depth). */
export interface RawParser {
  /** Canonical command tokens from the root: `["env", "config", "vars", "set"]`. */
  path: string[];
  command: string;
  prog: string;
  aliases: string[];
  help: string | null;
  description: string | null;
  /** conda's marker for plugin subcommands without `configure_parser`: raw leftover args only. */
  greedy: boolean;
  plugin: RawPluginInfo | null;
  mutually_exclusive_groups: RawExclusiveGroup[];
  actions: RawAction[];
  subcommands: RawParser[];
}

/** An installed distribution that registers conda plugins through entry-point group `conda`. */
export interface RawPluginDistribution {
  project_name: string;
  version: string | null;
  entry_points: { name: string; value: string; group: string }[];
  /** Hook names the plugin module defines (`subcommands`, `solvers`, ...), when known. */
  hooks: string[];
}

/** The introspection script's document on success. */
export interface IntrospectionResult {
  ok: true;
  conda_version: string;
  python_version: string;
  python_executable: string;
  /** Directories on the target's `sys.path`; the fingerprint scans them for dist-info. */
  site_dirs: string[];
  /** conda's root prefix: the base environment. */
  root_prefix: string;
  /** conda's `envs_dirs`, where named environments live. */
  envs_dirs: string[];
  external_plugins: RawPluginDistribution[];
  /** conda-completion facts that need the target's Python (absent from older dumps). */
  completion?: {
    /** `platformdirs.user_cache_dir("conda")`, or null when platformdirs is missing. */
    cache_dir: string | null;
    /** Installed version of the `conda-completion` distribution, or null. */
    distribution_version: string | null;
  };
  /**
   * conda's global pre-parser (`generate_pre_parser`), which reads its options from anywhere in
   * argv before the first `--`, inside passed-through arguments too; null when conda has none.
   */
  pre_parser: RawPreParser | null;
  tree: RawParser;
}

/** The options of conda's global pre-parser and how argparse matches them. */
export interface RawPreParser {
  option_strings: string[];
  /** Whether unique prefixes (`--verb`) match, as argparse's allow_abbrev. */
  allow_abbrev: boolean;
  prefix_chars: string;
}

/** The introspection script's document when it could not build conda's parser. */
export interface IntrospectionFailure {
  ok: false;
  error: { code: "UNSUPPORTED_CONDA" | "IMPORT_FAILED" | "PARSER_FAILED"; message: string };
}
