import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import type {
  Arity,
  CatalogCommand,
  Param,
  ParamShape,
  ValueSpec,
} from "../catalog/catalog-types.ts";
import { CondaMcpError } from "../errors.ts";
import type { RawPreParser } from "../introspection-payload.ts";
import { settingPartners } from "./setting-partners.ts";

/**
 * Longest accepted string value, in code points as JSON Schema's maxLength counts them. At four
 * UTF-8 bytes each, plus the longest `--option=`, one argument stays under Linux's 128 KiB
 * per-argument limit (MAX_ARG_STRLEN), so no accepted value fails to start with E2BIG.
 */
export const MAX_STRING_LENGTH = 32_000;
/** Most values one array parameter accepts. */
export const MAX_ARRAY_ITEMS = 1_024;
/** Highest accepted count (`-v` given this many times). */
export const MAX_COUNT = 16;

// Every schema carries its own expectation message so that no valibot default (which quotes
// the received value) can reach a client.
// argv carries UTF-8 without NUL: an unpaired surrogate would reach conda as U+FFFD.
const WELL_FORMED = "(?:[^\\0\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])*$";

type AnySchema = v.GenericSchema<unknown, unknown>;

/** A JSON object schema as MCP's tools/list carries it. */
export interface ToolInputJsonSchema {
  type: "object";
  properties: Record<string, object>;
  required: string[];
  additionalProperties: false;
  [key: string]: unknown;
}

/**
 * A tool's input schema twice: valibot for validation (buildValidator), JSON Schema for clients
 * (buildInputJsonSchema).
 */
export interface ToolSchema {
  validator: v.GenericSchema<unknown, Record<string, unknown>>;
  jsonSchema: ToolInputJsonSchema;
}

/** Where a string ends up on conda's command line. */
export type StringPlacement =
  /** Its own argv token (positionals, list values): must not look like an option. */
  | "token"
  /** Attached as `--opt=value`: argparse (3.11) drops a value of exactly `--` there. */
  | "attached"
  /** Handed on unparsed (REMAINDER, greedy plugins). */
  | "passthrough";

const STRING_RULES: Record<StringPlacement, { pattern: RegExp; expected: string }> = {
  token: {
    pattern: new RegExp(`^(?!-)${WELL_FORMED}`),
    expected: "a string that does not start with '-', without NUL or unpaired surrogates",
  },
  attached: {
    pattern: new RegExp(`^(?!--$)${WELL_FORMED}`),
    expected: "a string other than '--', without NUL or unpaired surrogates",
  },
  passthrough: {
    pattern: new RegExp(`^${WELL_FORMED}`),
    expected: "a string without NUL or unpaired surrogates",
  },
};

/** A string conda can receive as one argv item: no NUL, no unpaired surrogate, bounded. */
export function wellFormedString(maxCodePoints: number, what: string) {
  return v.pipe(
    v.string("a string"),
    v.regex(STRING_RULES.passthrough.pattern, STRING_RULES.passthrough.expected),
    v.maxCodePoints(maxCodePoints, `${what} of at most ${maxCodePoints} characters`),
  );
}

function stringSchema(placement: StringPlacement): AnySchema {
  const rule = STRING_RULES[placement];
  return v.pipe(
    v.string("a string"),
    v.regex(rule.pattern, rule.expected),
    v.maxCodePoints(MAX_STRING_LENGTH, `a string of at most ${MAX_STRING_LENGTH} characters`),
  ) as AnySchema;
}

function scalarSchema(value: ValueSpec, separateToken: boolean): AnySchema {
  if (value.choices !== null) {
    return v.picklist(
      value.choices,
      `one of ${value.choices.map((c) => JSON.stringify(c)).join(", ")}`,
    );
  }
  switch (value.type) {
    case "integer":
      return v.pipe(v.number("an integer"), v.safeInteger("an integer")) as AnySchema;
    case "number":
      return v.pipe(v.number("a number"), v.finite("a finite number")) as AnySchema;
    default:
      return stringSchema(separateToken ? "token" : "attached");
  }
}

function arraySchema(item: AnySchema, minItems: number, maxItems = MAX_ARRAY_ITEMS): AnySchema {
  const what =
    minItems === maxItems
      ? `exactly ${minItems} values`
      : `an array of ${minItems} to ${maxItems} values`;
  // An array stops at its first wrong item: a million wrong items must not become a million
  // issues (and a response of tens of megabytes).
  return v.config(
    v.pipe(v.array(item, "an array"), v.minLength(minItems, what), v.maxLength(maxItems, what)),
    { abortEarly: true },
  ) as AnySchema;
}

/** Values of one occurrence: a scalar, or an array when the arity takes several. */
function occurrenceSchema(arity: Arity, value: ValueSpec, isPositional: boolean): AnySchema {
  switch (arity.kind) {
    case "one":
      // Options pass one value as `--opt=value`, so a leading dash is safe there.
      return scalarSchema(value, isPositional);
    case "optional":
      return isPositional
        ? scalarSchema(value, true)
        : v.union([v.literal(true), scalarSchema(value, false)], "true, or a value");
    case "any":
      return arraySchema(scalarSchema(value, true), 0);
    case "some":
      return arraySchema(scalarSchema(value, true), 1);
    case "exactly":
      return arraySchema(
        scalarSchema(value, arity.count > 1 || isPositional),
        arity.count,
        arity.count,
      );
  }
}

function paramSchema(param: Param): AnySchema {
  const shape = param.shape;
  switch (shape.kind) {
    case "flag":
    case "toggle":
      return v.boolean("a boolean");
    case "count":
      return v.pipe(
        v.number("a non-negative integer"),
        v.integer("a non-negative integer"),
        v.minValue(0, "a non-negative integer"),
        v.maxValue(MAX_COUNT, `an integer of at most ${MAX_COUNT}`),
      ) as AnySchema;
    case "option": {
      const occurrence = occurrenceSchema(shape.arity, shape.value, false);
      return shape.repeat ? arraySchema(occurrence, 0) : occurrence;
    }
    case "extend_const":
      return arraySchema(scalarSchema(shape.value, true), 0);
    case "positional":
      return occurrenceSchema(shape.arity, shape.value, true);
    case "passthrough":
      return arraySchema(stringSchema("passthrough"), 0);
  }
}

/**
 * How much a tool definition says: `compact` (the default) keeps what helps a model choose a
 * value (type, enum, required, meaningful bounds, the first sentence of conda's help, the
 * combinations refused) and leaves the rest to the server's checks; `full` adds conda's whole
 * help, how each value is passed and every bound the server enforces.
 */
export type SchemaDetail = "compact" | "full";

const NONE: readonly string[] = [];

/**
 * The other params a param cannot be given with, as its full description names them: its
 * exclusive group and its setting's partners (a compact tool states them once, see describeTool).
 */
function conflictsOf(param: Param, command: CatalogCommand): readonly string[] {
  const members =
    param.exclusiveGroup === null
      ? NONE
      : (command.exclusiveGroups[param.exclusiveGroup]?.members ?? NONE);
  const partners = settingPartners(command, param);
  // Most params have neither: a cold start describes hundreds of them.
  if (members.length === 0 && partners.length === 0) return NONE;
  return [...members, ...partners.map((p) => p.name)].filter((name) => name !== param.name);
}

/** What a passthrough refuses for conda's global pre-parser (see preParsedIssues), at any detail. */
function preParsedRefusal(preParser: RawPreParser): string {
  const options = preParser.option_strings.join(", ");
  return `conda itself reads ${options} (with their prefixes and clusters): such items are refused before a '--' item.`;
}

/** The client-facing explanation of one parameter at a detail (see SchemaDetail). */
export function describeParam(
  param: Param,
  command: CatalogCommand,
  detail: SchemaDetail = "full",
  glossary: ReadonlyMap<string, string> = new Map(),
): string {
  const shape = param.shape;
  if (detail === "compact") {
    const parts: string[] = [];
    if (param.deprecated) parts.push("Deprecated.");
    else if (param.description) {
      const sentence = firstSentence(param.description);
      // Described once in the server's instructions (see sharedOptionGlossary).
      if (glossary.get(param.name) !== sentence) parts.push(sentence);
    }
    if (shape.kind === "passthrough") {
      parts.push(
        shape.greedy ? "Passed on unchanged." : "Passed on unchanged; first item not '-'.",
      );
      if (shape.preParser) parts.push(preParsedRefusal(shape.preParser));
    }
    return parts.join(" ");
  }
  const parts: string[] = [];
  if (param.deprecated) parts.push(`DEPRECATED: ${param.deprecated}`);
  else if (param.description) parts.push(param.description);
  if (param.option !== null) {
    const spelled = param.optionStrings.join("/");
    if (shape.kind === "toggle")
      parts.push(`true passes ${param.option}, false passes ${shape.negativeOption}.`);
    else if (shape.kind === "flag") parts.push(`true passes ${spelled}.`);
    else if (shape.kind === "count") parts.push(`Passes ${spelled} this many times.`);
    else if (shape.kind === "extend_const")
      parts.push(`Passes ${spelled}; an empty array passes it without values.`);
    else if (shape.kind === "option" && shape.repeat)
      parts.push(`Passes ${spelled} once per item.`);
    else parts.push(`Passes ${spelled}.`);
  } else if (shape.kind === "passthrough") {
    parts.push(
      shape.greedy
        ? "Passed to the plugin unchanged."
        : shape.separator
          ? "Passed unchanged after all options and a '--'; the first item must not start with '-'."
          : "Passed unchanged after all options; the first item must not start with '-'.",
    );
    if (shape.preParser) parts.push(preParsedRefusal(shape.preParser));
  }
  const others = conflictsOf(param, command);
  if (others.length > 0) parts.push(`Cannot be combined with: ${others.join(", ")}.`);
  return parts.join(" ");
}

// The advertised form of a token string's rule: no lookahead, which RE2-based validators reject.
const TOKEN_PATTERN = "^(?:[^-]|$)";

function withoutMinItems<S extends { minItems?: unknown }>(jsonSchema: S): Omit<S, "minItems"> {
  const { minItems: _minItems, ...rest } = jsonSchema;
  return rest;
}

/**
 * How valibot actions appear in the advertised JSON Schema, at either detail: every bound the
 * server enforces is shown; well-formedness and `--` checks stay server-side (their regexes need
 * lookahead).
 */
function advertisedAction(): NonNullable<Parameters<typeof toJsonSchema>[1]>["overrideAction"] {
  return ({ valibotAction, jsonSchema }) => {
    const action = valibotAction as unknown as { type: string; requirement?: unknown };
    // jsonSchema is the conversion with this action applied; drop what it added where unwanted.
    switch (action.type) {
      case "regex": {
        const { pattern: _pattern, ...withoutPattern } = jsonSchema;
        return action.requirement === STRING_RULES.token.pattern
          ? { ...withoutPattern, pattern: TOKEN_PATTERN }
          : withoutPattern;
      }
      case "max_code_points":
        // JSON Schema's maxLength counts code points, as this action does.
        return { ...jsonSchema, maxLength: action.requirement as number };
      case "min_length":
        // No list has fewer than no items.
        return action.requirement === 0 && jsonSchema.type === "array"
          ? withoutMinItems(jsonSchema)
          : undefined;
      case "max_length":
        // valibot counts a string's UTF-16 code units, JSON Schema its code points: a string
        // of emoji could pass the advertised maxLength and fail the server's check.
        if (jsonSchema.type === "string")
          throw new CondaMcpError(
            "a string's length is bounded with v.maxCodePoints, never v.maxLength",
            "INTERNAL",
          );
        return undefined;
      default:
        return undefined;
    }
  };
}

/** The JSON Schema clients are shown for a valibot schema (no `$schema`, see advertisedAction). */
export function advertisedJsonSchema(schema: v.GenericSchema): Record<string, unknown> {
  const converted = toJsonSchema(schema, {
    errorMode: "throw",
    overrideAction: advertisedAction(),
  }) as Record<string, unknown>;
  const { $schema: _dropped, ...rest } = converted;
  return rest;
}

/**
 * Params' schemas, built once for all the tools that have the same param: conda gives most
 * commands the same options. Keyed by everything a param's value schema is made of (25 distinct
 * among the real conda's 429 params), and then by description (129 distinct); valibot schemas
 * hold no state, so tools share them.
 */
export type SharedParamSchemas = Map<
  string,
  {
    /** The value's schema; `entry` is it as the object schema holds it (optional or not). */
    schema: AnySchema;
    entry: AnySchema;
    /** Converted when a definition first needs it: validating a call does not. */
    jsonSchema: Record<string, unknown> | null;
    metadata: Record<string, unknown>;
    described: Map<string, object>;
  }
>;

// Each shape's JSON, made once: the params of one conda action share its shape object.
const shapeKeys = new WeakMap<ParamShape, string>();

/** A param's entry in its tool's object schema, shared by the tools with the same param. */
function sharedParam(param: Param, detail: SchemaDetail, shared: SharedParamSchemas) {
  const deprecated = Boolean(param.deprecated);
  let shapeKey = shapeKeys.get(param.shape);
  if (shapeKey === undefined) {
    shapeKey = JSON.stringify(param.shape);
    shapeKeys.set(param.shape, shapeKey);
  }
  const shown = param.defaultValue === undefined ? "" : JSON.stringify(param.defaultValue);
  const key = `${shapeKey} ${param.required} ${deprecated} ${detail} ${shown}`;
  let built = shared.get(key);
  if (built === undefined) {
    const metadata: Record<string, unknown> = {};
    if (param.defaultValue !== undefined) metadata.default = param.defaultValue;
    if (deprecated) metadata.deprecated = true;
    const schema = v.pipe(paramSchema(param), v.metadata(metadata)) as AnySchema;
    built = {
      schema,
      entry: param.required ? schema : (v.optional(schema) as AnySchema),
      jsonSchema: null,
      metadata,
      described: new Map(),
    };
    shared.set(key, built);
  }
  return built;
}

/** A param's advertised JSON Schema with its description, shared by the tools that have both. */
function paramJsonSchema(
  param: Param,
  description: string,
  detail: SchemaDetail,
  shared: SharedParamSchemas,
): object {
  const built = sharedParam(param, detail, shared);
  // `optional` without a default adds nothing to the JSON Schema of what it wraps.
  built.jsonSchema ??= advertisedJsonSchema(built.schema);
  const converted = built.jsonSchema;
  if (description === "") return converted;
  let jsonSchema = built.described.get(description);
  if (jsonSchema === undefined) {
    // What converting v.description() piped before v.metadata() gives, without converting the
    // rest again: the description after the value's rules, before the metadata's keys.
    const { metadata } = built;
    const rules = Object.entries(converted).filter(([name]) => !(name in metadata));
    jsonSchema = { ...Object.fromEntries(rules), description, ...metadata };
    built.described.set(description, jsonSchema);
  }
  return jsonSchema;
}

/** The valibot validator of a command's tool: what a call's arguments are checked with. */
export function buildValidator(
  command: CatalogCommand,
  detail: SchemaDetail = "full",
  shared: SharedParamSchemas = new Map(),
): ToolSchema["validator"] {
  const entries: Record<string, AnySchema> = {};
  for (const param of command.params)
    entries[param.name] = sharedParam(param, detail, shared).entry;
  return v.strictObject(entries, "an object") as ToolSchema["validator"];
}

/**
 * The client-safe JSON Schema of a command's tool, as its definition advertises it (without the
 * validator, which a call builds with {@link buildValidator} when it needs it).
 */
export function buildInputJsonSchema(
  command: CatalogCommand,
  detail: SchemaDetail = "full",
  glossary: ReadonlyMap<string, string> = new Map(),
  shared: SharedParamSchemas = new Map(),
): ToolInputJsonSchema {
  const properties: Record<string, object> = {};
  const required: string[] = [];
  for (const param of command.params) {
    const description = describeParam(param, command, detail, glossary);
    properties[param.name] = paramJsonSchema(param, description, detail, shared);
    if (param.required) required.push(param.name);
  }
  // What toJsonSchema makes of the strict object, from its entries' shared conversions.
  const jsonSchema = toolJsonSchema({ type: "object", properties, required });
  const groupNotes = command.exclusiveGroups
    .filter((g) => g.required)
    .map((g) => `Exactly one of ${g.members.join(", ")} is required.`);
  if (groupNotes.length > 0) jsonSchema.description = groupNotes.join(" ");
  return jsonSchema;
}

/**
 * A converted valibot object schema as MCP's tools/list carries it: `properties` and `required`
 * always present, no properties beyond those.
 */
export function toolJsonSchema(converted: Record<string, unknown>): ToolInputJsonSchema {
  return {
    ...converted,
    type: "object",
    properties: (converted.properties ?? {}) as Record<string, object>,
    required: (converted.required ?? []) as string[],
    additionalProperties: false,
  };
}

/** The first sentence of a help text (an "e.g." or "i.e." does not end one). */
export function firstSentence(text: string): string {
  const end = text.search(/(?<!\b(?:e\.g|i\.e|etc|vs))[.!?](\s|$)/);
  return end === -1 ? text.trim() : text.slice(0, end + 1).trim();
}
