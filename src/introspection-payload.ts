import * as v from "valibot";

/**
 * The document `introspect.py` prints: conda's argparse tree and the installation facts that need
 * the target's Python. One valibot schema per part is its type and its validator. Objects are
 * loose: Python prints more keys than the program reads, and they pass through untouched (the
 * capabilities document shows them). Each distinct action is printed once, in `actions`, and
 * parsers name theirs by index; expandParser gives the tree the shape of
 * `shared/reference/conda-26.7-parser-tree.json`, so a recorded tree and a live one feed the
 * same catalog code. The script prints the document as lines (see introspectionLineSchemas),
 * each checked as it comes, and the server puts them together.
 */

const stringList = v.array(v.string());
const nullableString = v.nullable(v.string());

/** One argparse action, described without executing it. */
export const rawActionSchema = v.looseObject({
  /** Qualified class name, e.g. `argparse._StoreTrueAction`. */
  class: v.string(),
  /** Qualified names of the class's MRO, most derived first. */
  mro: stringList,
  option_strings: stringList,
  positional: v.boolean(),
  dest: v.string(),
  /** argparse nargs: null, an integer, or one of `?`, `*`, `+`, `...` (REMAINDER), `A...` (PARSER). */
  nargs: v.nullable(v.union([v.number(), v.string()])),
  /** The const, when JSON-representable; otherwise null (see const_repr). */
  const: v.unknown(),
  const_repr: v.string(),
  /** The default, when JSON-representable and not a sentinel; otherwise null. */
  default: v.unknown(),
  default_repr: v.string(),
  default_is_suppress: v.boolean(),
  /** conda's NULL sentinel: "not given, use the configuration". Never shown as a default. */
  default_is_conda_NULL: v.boolean(),
  /** `type=` callable's short name (`int`, `float`, `comma_separated_stripped`), or null. */
  type: nullableString,
  type_qualname: nullableString,
  /** Choices resolved at introspection time (lazy choices included), or null. */
  choices: v.nullable(v.array(v.unknown())),
  choices_kind: nullableString,
  required: v.boolean(),
  help: nullableString,
  /** True for `help=argparse.SUPPRESS`. */
  help_suppressed: v.boolean(),
  metavar: v.nullable(v.union([v.string(), stringList])),
  argument_group: nullableString,
  mutually_exclusive_group: v.nullable(v.object({ index: v.number(), required: v.boolean() })),
  /** Present on conda's deprecation-wrapped action classes. */
  deprecated: v.nullable(
    v.looseObject({
      message: v.string(),
      category: v.string(),
      /** The action class the deprecation wraps; null without conda's DeprecationMixin. */
      wrapped_action: nullableString,
    }),
  ),
  /** Present on `_SubParsersAction` (and subclasses). */
  subparsers: v.optional(
    v.looseObject({ required: v.boolean(), dest: nullableString, names: stringList }),
  ),
});
export type RawAction = v.InferOutput<typeof rawActionSchema>;

/** A parser's mutually exclusive group; members by option string, positionals by dest. */
const rawExclusiveGroupSchema = v.looseObject({
  index: v.number(),
  required: v.boolean(),
  actions: stringList,
});
export type RawExclusiveGroup = v.InferOutput<typeof rawExclusiveGroupSchema>;

/** The subcommand plugin that registered a parser, if any. */
const rawPluginInfoSchema = v.looseObject({
  name: v.string(),
  summary: v.nullish(v.string()),
  plugin_name: v.nullish(v.string()),
  distribution: v.nullish(v.string()),
  external: v.optional(v.boolean()),
});
export type RawPluginInfo = v.InferOutput<typeof rawPluginInfoSchema>;

const parserEntries = {
  /** Canonical command tokens from the root: `["env", "config", "vars", "set"]`. */
  path: stringList,
  command: v.string(),
  prog: v.string(),
  aliases: stringList,
  help: nullableString,
  description: nullableString,
  /** conda's marker for plugin subcommands without `configure_parser`: raw leftover args only. */
  greedy: v.boolean(),
  plugin: v.nullable(rawPluginInfoSchema),
  mutually_exclusive_groups: v.array(rawExclusiveGroupSchema),
};

type ParserFields = v.InferOutput<v.LooseObjectSchema<typeof parserEntries, undefined>>;

/** One parser as printed: its actions are indexes into the document's `actions`. */
export type IndexedParser = ParserFields & { actions: number[]; subcommands: IndexedParser[] };

/** One parser (the root, or a subcommand at any depth) with its actions in place. */
export type RawParser = ParserFields & { actions: RawAction[]; subcommands: RawParser[] };

const indexedParserSchema: v.GenericSchema<IndexedParser> = v.looseObject({
  ...parserEntries,
  actions: v.array(v.pipe(v.number(), v.safeInteger(), v.minValue(0))),
  subcommands: v.array(v.lazy(() => indexedParserSchema)),
});

/** Whether every action index in the tree names an entry of a table this long. */
export function indexesWithin(parser: IndexedParser, length: number): boolean {
  return (
    parser.actions.every((index) => index < length) &&
    parser.subcommands.every((sub) => indexesWithin(sub, length))
  );
}

/** An installed distribution that registers conda plugins through entry-point group `conda`. */
const rawPluginDistributionSchema = v.looseObject({
  project_name: v.string(),
  version: nullableString,
  entry_points: v.array(v.looseObject({ name: v.string(), value: v.string(), group: v.string() })),
  /** Hook names the plugin module defines (`subcommands`, `solvers`, ...), when known. */
  hooks: stringList,
});
export type RawPluginDistribution = v.InferOutput<typeof rawPluginDistributionSchema>;

/** The options of conda's global pre-parser and how argparse matches them. */
const rawPreParserSchema = v.looseObject({
  option_strings: stringList,
  /** Whether unique prefixes (`--verb`) match, as argparse's allow_abbrev. */
  allow_abbrev: v.boolean(),
  prefix_chars: v.string(),
});
export type RawPreParser = v.InferOutput<typeof rawPreParserSchema>;

/** What the document says of the installation, beside conda's parser tree and its plugins. */
const installationEntries = {
  ok: v.literal(true),
  conda_version: v.string(),
  python_version: v.string(),
  python_executable: v.string(),
  /** Directories on the target's `sys.path`; the fingerprint scans them for dist-info. */
  site_dirs: stringList,
  /** conda's root prefix: the base environment. */
  root_prefix: v.string(),
  /** conda's `envs_dirs`, where named environments live. */
  envs_dirs: stringList,
  /**
   * conda's global pre-parser (`generate_pre_parser`), which reads its options from anywhere in
   * argv before the first `--`, inside passed-through arguments too; null when conda has none.
   */
  pre_parser: v.nullable(rawPreParserSchema),
};

/** What the document says of conda's plugins. */
const pluginEntries = {
  external_plugins: v.array(rawPluginDistributionSchema),
  /** conda-completion facts that need the target's Python (absent from older dumps). */
  completion: v.optional(
    v.looseObject({
      /** `platformdirs.user_cache_dir("conda")`, or null when platformdirs is missing. */
      cache_dir: nullableString,
      /** Installed version of the `conda-completion` distribution, or null. */
      distribution_version: nullableString,
    }),
  ),
};

/** The root parser: its path is empty. */
const rootParserSchema = v.pipe(
  indexedParserSchema,
  v.check((tree) => tree.path.length === 0, "the root parser has an empty path"),
);

/** What a document whose tree names an action its table lacks is told. */
export const INDEXES_WITHIN_ACTIONS = "every action index of the tree names an entry of actions";

/** The introspection script's document on success, as the catalog cache keeps it. */
export const introspectionDocumentSchema = v.pipe(
  v.looseObject({
    ...installationEntries,
    ...pluginEntries,
    /** Every distinct action of the tree, once (conda repeats shared options in every parser). */
    actions: v.array(rawActionSchema),
    tree: rootParserSchema,
  }),
  v.check(
    (document) => indexesWithin(document.tree, document.actions.length),
    INDEXES_WITHIN_ACTIONS,
  ),
);
export type IntrospectionDocument = v.InferOutput<typeof introspectionDocumentSchema>;

/** The document with the tree's actions in place (see expandParser), as the tests read it. */
export type IntrospectionResult = IntrospectionFacts & PluginFacts & { tree: RawParser };

/**
 * The lines the script prints after the site folders, in this order: the installation's facts
 * once conda's parser is built; each top-level command as soon as it is described, conda's own
 * first; the plugins' facts, once, before the first command a plugin registers (or the root);
 * and the root parser. A command line carries the actions first seen in it, appended to the
 * table in order, as the root's does. The document is the two lines of facts with the table and
 * the root, whose subcommands are the commands printed before it. A failure line
 * (introspectionFailureSchema) may come instead of any of them.
 */
export const introspectionLineSchemas = {
  facts: v.looseObject(installationEntries),
  plugins: v.looseObject(pluginEntries),
  command: v.looseObject({ actions: v.array(rawActionSchema), command: indexedParserSchema }),
  end: v.looseObject({ actions: v.array(rawActionSchema), tree: rootParserSchema }),
};
/** What the document says of the installation, beside conda's parser tree and its plugins. */
export type IntrospectionFacts = v.InferOutput<typeof introspectionLineSchemas.facts>;
/** What the document says of conda's plugins. */
export type PluginFacts = v.InferOutput<typeof introspectionLineSchemas.plugins>;

/** The introspection script's document when it could not build conda's parser. */
export const introspectionFailureSchema = v.looseObject({
  ok: v.literal(false),
  /** `UNSUPPORTED_CONDA`, `IMPORT_FAILED` or `PARSER_FAILED`, and why. */
  error: v.fallback(v.looseObject({ code: v.string(), message: v.string() }), {
    code: "PARSER_FAILED",
    message: "the script reported a failure without a reason",
  }),
});

/**
 * The first way a document failed its schema, as where and what was expected (`tree.actions[2].dest`:
 * expected string), never quoting the value found there.
 */
export function describeFirstIssue(issues: readonly v.BaseIssue<unknown>[]): string {
  const issue = issues[0];
  if (!issue) return "it does not match its schema";
  let where = "";
  for (const item of issue.path ?? []) {
    const key = item.key;
    where += typeof key === "number" ? `[${key}]` : `${where ? "." : ""}${String(key)}`;
  }
  const expected = `expected ${issue.expected ?? "a valid value"}`;
  return where ? `\`${where}\`: ${expected}` : expected;
}

/** One parser and those below it with their actions in place, taken from `actions`. */
export function expandParser(parser: IndexedParser, actions: readonly RawAction[]): RawParser {
  return {
    ...parser,
    actions: parser.actions.map((index) => actions[index] as RawAction),
    subcommands: parser.subcommands.map((sub) => expandParser(sub, actions)),
  };
}
