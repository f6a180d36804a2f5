import fc from "fast-check";
import type { Arity, CatalogCommand, Param, ValueSpec } from "../../src/catalog/catalog-types.ts";
import { paramTokens } from "../../src/schema/build-argv.ts";
import { preParsedOption } from "../../src/schema/pre-parsed-option.ts";

/** Strings that look like trouble on a command line, none of them option-like as a whole. */
const AWKWARD = [
  "a=b",
  "=",
  "x y",
  " ",
  "",
  "*",
  "$HOME",
  "`id`",
  "; rm -rf /",
  "'\"",
  "ü∂✓",
  "😀",
  "a\nb",
  "\\",
];

// Unicode strings without NUL or unpaired surrogates: the values argv can carry.
const anyText = fc
  .oneof(
    fc.string({ maxLength: 12 }),
    fc.string({ unit: "grapheme", maxLength: 6 }),
    fc.constantFrom(...AWKWARD),
    fc.constantFrom("-x", "--json", "--", "-", "--name=evil", "-h"),
  )
  .filter((s) => !s.includes("\0"));

/** Text valid where the value becomes its own token, or is attached as `--opt=value`. */
function textArb(separateToken: boolean): fc.Arbitrary<string> {
  return separateToken
    ? anyText.filter((s) => !s.startsWith("-"))
    : anyText.filter((s) => s !== "--");
}

/**
 * Values of a param's own domain that conda checks beyond argparse (package specs, environment
 * names): given for a param, they replace the generic strings of its scalar values.
 */
export type DomainArb = (param: Param) => fc.Arbitrary<string> | null;

function scalarArb(
  value: ValueSpec,
  separateToken: boolean,
  domain: fc.Arbitrary<string> | null = null,
): fc.Arbitrary<string | number> {
  if (value.choices !== null) return fc.constantFrom(...value.choices);
  if (domain !== null && value.type === "string") return domain;
  if (value.type === "integer") return fc.integer({ min: -1000, max: 1_000_000 });
  if (value.type === "number")
    return fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });
  return textArb(separateToken);
}

function occurrenceArb(
  arity: Arity,
  value: ValueSpec,
  positional: boolean,
  domain: fc.Arbitrary<string> | null,
): fc.Arbitrary<unknown> {
  switch (arity.kind) {
    case "one":
      return scalarArb(value, positional, domain);
    case "optional":
      return positional
        ? scalarArb(value, true, domain)
        : fc.oneof(fc.constant(true), scalarArb(value, false, domain));
    case "any":
      return fc.array(scalarArb(value, true, domain), { maxLength: 3 });
    case "some":
      return fc.array(scalarArb(value, true, domain), { minLength: 1, maxLength: 3 });
    case "exactly":
      return fc.array(scalarArb(value, arity.count > 1 || positional, domain), {
        minLength: arity.count,
        maxLength: arity.count,
      });
  }
}

/** An arbitrary valid value for one param. */
export function paramArb(param: Param, domainArb: DomainArb = () => null): fc.Arbitrary<unknown> {
  const shape = param.shape;
  const domain = domainArb(param);
  switch (shape.kind) {
    case "flag":
    case "toggle":
      return fc.boolean();
    case "count":
      return fc.integer({ min: 0, max: 4 });
    case "option":
      return shape.repeat
        ? fc.array(occurrenceArb(shape.arity, shape.value, false, domain), { maxLength: 3 })
        : occurrenceArb(shape.arity, shape.value, false, domain);
    case "extend_const":
      return fc.array(scalarArb(shape.value, true, domain), { maxLength: 3 });
    case "positional":
      return occurrenceArb(shape.arity, shape.value, true, domain);
    case "passthrough": {
      const items = shape.greedy
        ? fc.array(anyText, { maxLength: 4 })
        : fc
            .tuple(textArb(true), fc.array(anyText, { maxLength: 3 }))
            .map(([first, rest]) => [first, ...rest]);
      const preParser = shape.preParser;
      if (preParser === null) return items;
      // conda would read these items itself: before a `--`, leave out what its pre-parser takes.
      return items.map((list) => {
        const end = list.indexOf("--");
        return list.filter(
          (item, i) => (end !== -1 && i > end) || !preParsedOption(item, preParser),
        );
      });
    }
  }
}

/**
 * Valid arguments for a command: each param given or not, at most one member of each exclusive
 * group and one param per shared dest (the last would win), exactly one member of a required
 * group, and positionals given left to right.
 */
export function argsArb(
  command: CatalogCommand,
  domainArb: DomainArb = () => null,
): fc.Arbitrary<Record<string, unknown>> {
  const entries: Record<string, fc.Arbitrary<unknown>> = {};
  for (const param of command.params)
    entries[param.name] = fc.option(paramArb(param, domainArb), { nil: undefined });
  const choices = command.exclusiveGroups.map((g) => fc.constantFrom(...g.members));
  return fc.tuple(fc.record(entries), fc.tuple(...choices)).map(([raw, chosen]) => {
    const args: Record<string, unknown> = {};
    const keep = new Set(chosen);
    const usedDests = new Set<string>();
    let positionalGap = false;
    for (const param of command.params) {
      const mustGive =
        param.required ||
        (param.exclusiveGroup !== null &&
          command.exclusiveGroups[param.exclusiveGroup]?.required &&
          keep.has(param.name));
      const given = (v: unknown) => v !== undefined && paramTokens(param, v).length > 0;
      const value =
        mustGive && !given(raw[param.name])
          ? fc.sample(paramArb(param, domainArb).filter(given), { numRuns: 1, seed: 1 })[0]
          : raw[param.name];
      if (value === undefined || paramTokens(param, value).length === 0) {
        if (param.option === null) positionalGap = true;
        if (value === undefined) continue;
      }
      if (param.exclusiveGroup !== null && !keep.has(param.name)) continue;
      if (param.option === null && positionalGap && param.shape.kind !== "passthrough") continue;
      if (usedDests.has(param.dest)) continue;
      usedDests.add(param.dest);
      args[param.name] = value;
    }
    return args;
  });
}
