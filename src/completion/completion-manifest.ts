import * as v from "valibot";
import { isJsonObject } from "../values.ts";

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

/** A map read from the manifest: null-prototype, own keys only. */
export type ManifestDict<T> = Readonly<Record<string, T>>;

/** The schema `manifestDict` returns: a valibot record (so JSON Schema sees one) of own keys. */
export interface ManifestDictSchema<TValue extends v.GenericSchema>
  extends v.BaseSchema<
    Record<string, v.InferInput<TValue>>,
    ManifestDict<v.InferOutput<TValue>>,
    v.RecordIssue | v.InferIssue<TValue>
  > {
  readonly type: "record";
  readonly reference: typeof manifestDict;
  readonly key: v.StringSchema<undefined>;
  readonly value: TValue;
  readonly message: string;
}

/**
 * A map keyed by names from the manifest (commands, options, aliases, runtime sources): valibot's
 * record, except that every own key is kept, `__proto__`, `constructor` and `prototype` included
 * (valibot's record drops them), in a null-prototype object. Its entries' path items are of type
 * `unknown`: their keys come from the file, so a schematic path shows them as `*`.
 */
export function manifestDict<TValue extends v.GenericSchema>(
  value: TValue,
): ManifestDictSchema<TValue> {
  return v._standardSchema<ManifestDictSchema<TValue>>({
    kind: "schema",
    type: "record",
    reference: manifestDict,
    expects: "Object",
    async: false,
    key: v.string(),
    value,
    message: "a map",
    "~run"(dataset, config) {
      // When false, checkMap has turned the dataset into a failure.
      if (!checkMap(this, dataset, config)) {
        return dataset as unknown as v.FailureDataset<v.RecordIssue>;
      }
      const input = dataset.value;
      const value: Record<string, unknown> = Object.create(null);
      const issues: v.BaseIssue<unknown>[] = [];
      let typed = true;
      for (const [key, item] of Object.entries(input)) {
        const entry = this.value["~run"]({ value: item }, config);
        if (!entry.typed) typed = false;
        for (const issue of entry.issues ?? []) {
          const at: v.UnknownPathItem = {
            type: "unknown",
            origin: "value",
            input,
            key,
            value: item,
          };
          issues.push({ ...issue, path: [at, ...(issue.path ?? [])] });
        }
        if (entry.issues && config.abortEarly) break;
        // defineProperty makes an own data property even of "__proto__"; never a prototype change.
        Object.defineProperty(value, key, {
          value: entry.value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return (issues.length > 0 ? { typed, value, issues } : { typed, value }) as v.OutputDataset<
        ManifestDict<v.InferOutput<TValue>>,
        v.RecordIssue | v.InferIssue<TValue>
      >;
    },
  });
}

const OPTIONAL_TYPES: ReadonlySet<string> = new Set(["optional", "nullish", "exact_optional"]);

/**
 * A manifest map of named fields: valibot's object (unknown keys dropped), where a field that is
 * nil reads as absent, as an absent key does (Python's None). A required field that is absent is
 * handed to its own schema, so the refusal says what that field expects, not what the map does.
 */
export function manifestFields<const TEntries extends v.ObjectEntries>(entries: TEntries) {
  const object = v.object(entries, "a map");
  return v._standardSchema<typeof object>({
    ...object,
    "~run"(dataset, config) {
      // When false, checkMap has turned the dataset into a failure.
      if (!checkMap(object, dataset, config)) {
        return dataset as unknown as v.FailureDataset<v.ObjectIssue>;
      }
      const input = dataset.value;
      const fields: Record<string, unknown> = Object.create(null);
      for (const [key, schema] of Object.entries(entries)) {
        const value = Object.hasOwn(input, key) ? input[key] : null;
        if (value !== null) fields[key] = value;
        else if (!OPTIONAL_TYPES.has(schema.type)) fields[key] = undefined;
      }
      return object["~run"]({ value: fields }, config);
    },
  });
}

/**
 * True when the dataset holds a map (a JSON object); otherwise adds the schema's type issue.
 * valibot's own object and record schemas would take a list for a map.
 */
export function checkMap(
  schema: v.GenericSchema & { message: string },
  dataset: v.UnknownDataset,
  config: v.Config<v.BaseIssue<unknown>>,
): dataset is v.UnknownDataset & { value: Record<string, unknown> } {
  if (isJsonObject(dataset.value)) return true;
  v._addIssue(schema, "type", dataset, config);
  return false;
}
