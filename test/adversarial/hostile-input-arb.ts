import fc from "fast-check";
import type { Arity, CatalogCommand, Param, ValueSpec } from "../../src/catalog/catalog-types.ts";
import { MAX_ARRAY_ITEMS, MAX_STRING_LENGTH } from "../../src/schema/build-input-schema.ts";
import { argsArb } from "../support/arbitrary-args.ts";

/** Property names that attack prototype chains or the validator's bookkeeping. */
export const PROTOTYPE_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "__defineGetter__",
];

// Strings that try to become options, end option parsing, smuggle bytes argv cannot carry or
// break text handling. Huge ones are built lazily by hugeStringArb.
const TRICKY_STRINGS = [
  "-",
  "--",
  "---",
  "-h",
  "--help",
  "--json",
  "-v",
  "--version",
  "--debug",
  "--no-plugins",
  "--name=evil",
  "--prefix=/",
  "-n",
  "-nbase",
  "--=",
  "=",
  "==",
  "a=b",
  "-5",
  "-1e3",
  "- x",
  " --json",
  "\0",
  "a\0b",
  "--json\0",
  "\uD800",
  "a\uDC00b",
  "\uDBFF",
  "\uDC00\uD800",
  "\uD83D\uDE00",
  "\u202E--json",
  "\uFEFF-x",
  "\r\n",
  "a\nb",
  "\u2028",
  "e\u0301",
  "$HOME",
  "$(id)",
  "`id`",
  "; rm -rf /",
  "%s%n",
  "NaN",
  "null",
  "true",
  "{}",
  "[]",
  ...PROTOTYPE_KEYS,
];

/** Strings over (and just at) the length and byte limits. */
function hugeStringArb(): fc.Arbitrary<string> {
  return fc
    .constantFrom(MAX_STRING_LENGTH + 1, MAX_STRING_LENGTH, 200_000)
    .chain((length) =>
      fc
        .constantFrom("a", "-", "é", "😀", "\0")
        .map((unit) => unit.repeat(length).slice(0, length)),
    );
}

/** Hostile strings: option lookalikes (the command's own included), NUL, lone surrogates, huge. */
export function hostileStringArb(optionStrings: readonly string[]): fc.Arbitrary<string> {
  const own = optionStrings.length > 0 ? [fc.constantFrom(...optionStrings)] : [];
  const ownWithValue =
    optionStrings.length > 0
      ? [fc.tuple(fc.constantFrom(...optionStrings), fc.string()).map(([o, v]) => `${o}=${v}`)]
      : [];
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...TRICKY_STRINGS) },
    { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
    { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 8 }) },
    { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 6 }) },
    ...own.map((arbitrary) => ({ weight: 3, arbitrary })),
    ...ownWithValue.map((arbitrary) => ({ weight: 2, arbitrary })),
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom("-", "--", "", "="), fc.string({ maxLength: 8 }))
        .map(([a, b]) => a + b),
    },
    { weight: 1, arbitrary: hugeStringArb() },
  );
}

/** An array nested `depth` times around a value. */
function nest(depth: number, inner: unknown): unknown {
  let value = inner;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** Any JSON value a client could send, biased towards trouble: wrong types, deep arrays, big arrays. */
export function hostileValueArb(optionStrings: readonly string[]): fc.Arbitrary<unknown> {
  const text = hostileStringArb(optionStrings);
  const leaf = fc.oneof(
    { weight: 5, arbitrary: text },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        null,
        true,
        false,
        0,
        -1,
        1.5,
        -0.5,
        17,
        2 ** 31,
        2 ** 53,
        2 ** 53 + 2,
        -(2 ** 60),
        1e308,
        5e-324,
      ),
    },
    { weight: 1, arbitrary: fc.integer() },
    { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  );
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      { weight: 6, arbitrary: leaf },
      { weight: 2, arbitrary: fc.array(tie("value"), { maxLength: 4 }) },
      {
        weight: 1,
        arbitrary: fc
          .array(fc.tuple(fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), text), tie("value")), {
            maxLength: 3,
          })
          .map((entries) => Object.fromEntries(entries)),
      },
    ),
  }));
  return fc.oneof(
    { weight: 10, arbitrary: value },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.integer({ min: 50, max: 3000 }), leaf).map(([d, v]) => nest(d, v)),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(MAX_ARRAY_ITEMS + 1, 5000), fc.constantFrom("a", 1, null, "-x"))
        .map(([n, item]) => Array.from({ length: n }, () => item)),
    },
  );
}

/** Numbers near every edge a schema checks: signs, fractions, safe-integer bounds, huge. */
const hostileNumberArb = fc.oneof(
  fc.integer({ min: -20, max: 20 }),
  fc.constantFrom(0.5, -1.5, 2 ** 53 - 1, 2 ** 53, -(2 ** 53) - 2, 1e21, 1e308, -1e-7),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

function shapedScalarArb(value: ValueSpec, text: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  const choices = value.choices ?? [];
  const near =
    choices.length > 0
      ? [fc.constantFrom(...choices), fc.constantFrom(...choices).map((c) => `${c} `)]
      : [];
  return fc.oneof(
    ...near,
    value.type === "string" ? text : hostileNumberArb,
    value.type === "string" ? text : fc.constantFrom("1", "-1", "1e3", ""),
  );
}

function shapedListArb(item: fc.Arbitrary<unknown>, arity: Arity): fc.Arbitrary<unknown[]> {
  const exact = arity.kind === "exactly" ? arity.count : null;
  return fc.oneof(
    fc.array(item, { maxLength: 4 }),
    ...(exact !== null ? [fc.array(item, { minLength: exact, maxLength: exact })] : []),
    // At and over the item limit, with short items (huge ones are tried in short lists).
    fc
      .tuple(fc.constantFrom(MAX_ARRAY_ITEMS, MAX_ARRAY_ITEMS + 1), fc.constantFrom("a", "-x", 1))
      .map(([n, v]) => Array.from({ length: n }, () => v)),
  );
}

function shapedOccurrenceArb(
  arity: Arity,
  value: ValueSpec,
  text: fc.Arbitrary<string>,
): fc.Arbitrary<unknown> {
  const scalar = shapedScalarArb(value, text);
  if (arity.kind === "one") return scalar;
  if (arity.kind === "optional") return fc.oneof(fc.constant(true), scalar);
  return shapedListArb(scalar, arity);
}

/**
 * A value of the param's own JSON shape whose strings and numbers are hostile: the boundary
 * where a value is accepted and must still not become an option.
 */
export function shapedHostileArb(
  param: Param,
  optionStrings: readonly string[],
): fc.Arbitrary<unknown> {
  const text = hostileStringArb(optionStrings);
  const shape = param.shape;
  switch (shape.kind) {
    case "flag":
    case "toggle":
      return fc.oneof(fc.boolean(), fc.constantFrom(0, 1, "true", null));
    case "count":
      return hostileNumberArb;
    case "option": {
      const occurrence = shapedOccurrenceArb(shape.arity, shape.value, text);
      return shape.repeat ? shapedListArb(occurrence, { kind: "any" }) : occurrence;
    }
    case "extend_const":
      return shapedListArb(shapedScalarArb(shape.value, text), { kind: "any" });
    case "positional":
      return shapedOccurrenceArb(shape.arity, shape.value, text);
    case "passthrough":
      return shapedListArb(text, { kind: "any" });
  }
}

/** Extra property names: prototype keys, near-misses of real names, and plain garbage. */
function extraKeyArb(
  command: CatalogCommand,
  optionStrings: readonly string[],
): fc.Arbitrary<string> {
  const near = command.params.flatMap((p) => [p.name.toUpperCase(), `${p.name} `, p.dest]);
  return fc.oneof(
    fc.constantFrom(...PROTOTYPE_KEYS),
    fc.constantFrom("", "/", "~", "a/b~c", "x".repeat(200), "\0", "\uD800", "k\ney"),
    ...(near.length > 0 ? [fc.constantFrom(...near)] : []),
    ...(optionStrings.length > 0 ? [fc.constantFrom(...optionStrings)] : []),
    fc.string({ maxLength: 10 }),
  );
}

/**
 * Tool arguments as a hostile client sends them (already through JSON, so `__proto__` is an own
 * property): valid arguments with some values replaced, extra properties, or no object at all.
 */
export function hostileArgsArb(
  command: CatalogCommand,
  optionStrings: readonly string[],
): fc.Arbitrary<unknown> {
  const value = hostileValueArb(optionStrings);
  const edit = (param: Param) =>
    fc.oneof(
      { weight: 3, arbitrary: shapedHostileArb(param, optionStrings) },
      { weight: 1, arbitrary: value },
    );
  const edits =
    command.params.length > 0
      ? fc.array(
          fc
            .constantFrom(...command.params)
            .chain((param) => edit(param).map((v): [string, unknown] => [param.name, v])),
          { maxLength: 3 },
        )
      : fc.constant([] as [string, unknown][]);
  const extras = fc.array(fc.tuple(extraKeyArb(command, optionStrings), value), { maxLength: 2 });
  const edited = fc
    .record({ base: argsArb(command), edits, extras, mode: fc.nat(9) })
    .map(({ base, edits, extras, mode }) => {
      const entries = Object.entries(base);
      // mode 0-2: valid as generated; 3-6: values replaced; 7-9: extra properties as well.
      if (mode >= 3) entries.push(...edits);
      if (mode >= 7) entries.push(...extras);
      return Object.fromEntries(entries);
    });
  return fc
    .oneof(
      { weight: 12, arbitrary: edited },
      { weight: 1, arbitrary: value },
      { weight: 1, arbitrary: fc.constantFrom(undefined, null, [], [{}], "{}", 0, true) },
    )
    .map(throughJson);
}

/** What a client's value becomes on the wire: JSON text parsed again (undefined stays undefined). */
export function throughJson(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : JSON.parse(text);
}

/** Every string value (not property name) inside a JSON value. */
export function submittedStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const item of value) submittedStrings(item, out);
  else if (value !== null && typeof value === "object")
    for (const item of Object.values(value)) submittedStrings(item, out);
  return out;
}

/** Every property name inside a JSON value. */
export function submittedKeys(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) submittedKeys(item, out);
  else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      out.push(key);
      submittedKeys(item, out);
    }
  }
  return out;
}
