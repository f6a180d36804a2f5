import * as v from "valibot";

const TARGET_ROLES = [
  "prefix",
  "destination",
  "rc_file",
  "output_file",
  "tempfiles",
  "pkgs_dir",
] as const;

/**
 * What a path is to the command: its environment, rename's destination, a file it writes, a
 * folder `clean --tempfiles` empties of temporary files, a folder `config` adds to pkgs_dirs.
 */
export type TargetRole = (typeof TARGET_ROLES)[number];

const TargetFactsSchema = v.object({
  role: v.picklist(TARGET_ROLES),
  /** Absolute, as conda computed it (names resolved, `~` and variables expanded). */
  path: v.string(),
  exists: v.boolean(),
  is_dir: v.boolean(),
  /** conda's own test: `conda-meta/history` is there. */
  is_environment: v.boolean(),
  /** The root prefix, symlinks resolved. */
  is_base: v.boolean(),
  /** The root prefix, an envs dir or a package cache is the path or lies below it. */
  holds_installation: v.boolean(),
  /**
   * An environment lies below it; null when the folder was too large to search. Searched only
   * for a prefix the command deletes (remove --all, env remove, rename).
   */
  nested_environment: v.optional(v.nullable(v.boolean())),
  /** For a prefix that is an environment: its owner froze it (conda-meta/frozen, CEP 22). */
  is_frozen: v.optional(v.boolean()),
  /** For rename's destination: it lies inside the environment renamed (symlinks resolved). */
  inside_source: v.optional(v.boolean()),
  /** For the tarball `package` builds: its name holds no path separator. */
  plain_name: v.optional(v.boolean()),
  /** For export's file: it ends as the names of conda's export formats do (.yml, .txt, ...). */
  named_as_export: v.optional(v.boolean()),
  /** For a folder `config` adds to pkgs_dirs: one of the package caches conda uses now. */
  is_package_cache: v.optional(v.boolean()),
  /** For a folder `config` adds to pkgs_dirs: given relative, it moves with each call's cwd. */
  is_relative: v.optional(v.boolean()),
  /**
   * For an rc file that exists: named as conda's configuration and read by conda now, empty, or
   * a YAML mapping of settings conda knows only. For a new one: named as conda's configuration.
   */
  is_config: v.optional(v.boolean()),
});

/** What conda says about one path a call acts on. */
export type TargetFacts = v.InferOutput<typeof TargetFactsSchema>;

const ParsedSchema = v.object({
  outcome: v.literal("parsed"),
  /** The canonical command path conda's parser chose (aliases and abbreviations resolved). */
  path: v.array(v.string()),
  /** Every dest whose value differs from its default. */
  values: v.record(v.string(), v.unknown()),
  targets: v.array(TargetFactsSchema),
  /** conda's error while it worked out a target (a missing environment file, a bad name). */
  target_error: v.nullable(v.string()),
  /** NAME=VALUE of each variable the environment files give (create, install, update, env create, env update). */
  file_variables: v.optional(v.array(v.string())),
});

/** conda's account of a command line it would run. */
export type ParsedCallFacts = v.InferOutput<typeof ParsedSchema>;

/** The document the embedded fact-finder prints: its schema, type and validator in one. */
export const CallFactsSchema = v.variant("outcome", [
  ParsedSchema,
  /** conda only prints (help, version, usage) and exits 0. */
  v.object({ outcome: v.literal("prints") }),
  /** conda stops with an error before any command runs. */
  v.object({ outcome: v.literal("fails") }),
  /** A `shell.*` command, which conda handles outside its parser. */
  v.object({ outcome: v.literal("shell") }),
  /** Anything else (an unexpected error, an API this conda lacks): nobody can tell. */
  v.object({ outcome: v.literal("unknown"), message: v.string() }),
]);

/** What conda would do with one command line, by conda's own code. */
export type CallFacts = v.InferOutput<typeof CallFactsSchema>;
