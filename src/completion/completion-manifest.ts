import * as v from "valibot";
import { type ManifestDict, manifestDict } from "./manifest-dict.ts";
import { manifestFields } from "./manifest-fields.ts";

/*
 * The parts of conda-completion 0.3's `completion.msgpack` that the program reads: each schema is
 * the type, the validator (`validateManifest`) and, for what the tool returns, the JSON Schema.
 * Every keyed map is a null-prototype object whose keys came from the file (see manifestDict), so
 * a key such as `__proto__` or `constructor` is an own property and never reaches a prototype;
 * look keys up with `Object.hasOwn` only. Unknown keys of the file are dropped, and so is
 * `package_names` (a package cache this program never returns). Empty fields are absent.
 * Each message is the expectation a refusal states: a list's items carry the list's.
 */

const text = v.string("a string");
const optionalText = v.optional(text);
const optionalTextList = v.optional(v.array(v.string("a list of strings"), "a list of strings"));
const emptyDict = (): Record<string, never> => Object.create(null);

/** One option of a command, keyed in its command by its first long flag. */
export const ManifestOptionSchema = manifestFields({
  short: optionalText,
  choices: optionalTextList,
  /** argparse nargs as a string: `"0"`, `"?"`, `"*"`, `"+"`, `"2"`, `"..."`. */
  nargs: optionalText,
  /** A built-in completion type (`env_name`, `directory`, ...) or a `runtime_sources` name. */
  completion_type: optionalText,
  description: optionalText,
  metavar: optionalText,
  /** Python `str()` of the argparse default (`"Null"` is conda's "use the configuration"). */
  default: optionalText,
  required: v.optional(v.boolean("a boolean")),
  /** The argparse argument group's title. */
  group: optionalText,
});

/** One option of a command, as validated. */
export type ManifestOption = v.InferOutput<typeof ManifestOptionSchema>;

/** A context rule: use `sources` once all of `when_options` appeared earlier on the line. */
const CompletionRuleSchema = manifestFields({
  sources: optionalTextList,
  when_options: optionalTextList,
});

/** One positional argument, in declaration order. */
export const ManifestPositionalSchema = manifestFields({
  name: text,
  choices: optionalTextList,
  nargs: optionalText,
  completion_type: optionalText,
  /** A compound completion: default sources plus ordered rules. */
  completion: v.optional(
    manifestFields({
      sources: optionalTextList,
      rules: v.optional(v.array(CompletionRuleSchema, "a list")),
    }),
  ),
  description: optionalText,
  metavar: optionalText,
});

/** One positional argument, as validated. */
export type ManifestPositional = v.InferOutput<typeof ManifestPositionalSchema>;

const GROUPS = "a list of lists of strings";

const commandFields = {
  summary: optionalText,
  options: v.optional(manifestDict(ManifestOptionSchema), emptyDict),
  positionals: v.optional(v.array(ManifestPositionalSchema, "a list"), () => []),
  /** Mutually exclusive options, each named by its first declared option string. */
  exclusive_groups: v.optional(v.array(v.array(v.string(GROUPS), GROUPS), GROUPS), () => []),
};

/** One command node; subparser aliases are separate keys holding a copied subtree. */
export type ManifestCommand = v.InferOutput<v.ObjectSchema<typeof commandFields, undefined>> & {
  subcommands: ManifestDict<ManifestCommand>;
};

// Annotated: a recursive schema's type cannot be inferred from itself.
const ManifestCommandSchema: v.GenericSchema<unknown, ManifestCommand> = manifestFields({
  ...commandFields,
  // The manifest's depth limit bounds this recursion.
  subcommands: v.optional(manifestDict(v.lazy(() => ManifestCommandSchema)), emptyDict),
});

/** An executable alias (`cx`) that stands for a command path (`["exec"]`). */
const ManifestAliasSchema = manifestFields({
  target: v.array(v.string("a list of strings"), "a list of strings"),
  description: optionalText,
});

const INTEGER = "an integer";

/**
 * A plugin-defined runtime candidate source. Integers beyond ±(2^53 − 1) are kept exactly as
 * decimal strings, never as BigInt or a rounded number.
 */
export const ManifestRuntimeSourceSchema = manifestFields({
  kind: optionalText,
  description: optionalText,
  group: optionalText,
  env_var: optionalText,
  env_suffix: optionalTextList,
  home_suffix: optionalTextList,
  entry_type: optionalText,
  strip_suffix: optionalText,
  max_entries: v.optional(
    v.pipe(
      v.union(
        [
          v.pipe(v.number(INTEGER), v.integer(INTEGER)),
          v.pipe(v.string(INTEGER), v.regex(/^-?\d+$/, INTEGER)),
        ],
        INTEGER,
      ),
      v.description("An integer; beyond ±(2^53 − 1) given exactly as a decimal string."),
    ),
  ),
});

/** A plugin-defined runtime candidate source, as validated. */
export type ManifestRuntimeSource = v.InferOutput<typeof ManifestRuntimeSourceSchema>;

/** A conda-completion manifest (file format `version` 1, as written by 0.2 and 0.3). */
export const CompletionManifestSchema = manifestFields({
  version: v.literal(1, "the number 1"),
  commands: manifestDict(ManifestCommandSchema),
  /** ISO 8601 generation time, or null when the file has none. */
  generated_at: v.nullish(text, null),
  /** Hash of the plugin entry-point names at generation time, or null when the file has none. */
  plugin_hash: v.nullish(text, null),
  root_options: v.optional(manifestDict(ManifestOptionSchema), emptyDict),
  aliases: v.optional(manifestDict(ManifestAliasSchema), emptyDict),
  runtime_sources: v.optional(manifestDict(ManifestRuntimeSourceSchema), emptyDict),
});

/** A validated conda-completion manifest. */
export type CompletionManifest = v.InferOutput<typeof CompletionManifestSchema>;
