import { isVariableLength } from "../catalog/build-catalog.ts";
import type { Arity, CatalogCommand, Param } from "../catalog/catalog-types.ts";

type Scalar = string | number;

function text(value: Scalar): string {
  return typeof value === "number" ? String(value) : value;
}

/** `--opt=value` keeps a value that starts with `-` from being read as an option. */
function attached(option: string, value: Scalar): string {
  return `${option}=${text(value)}`;
}

function occurrenceTokens(option: string, arity: Arity, value: unknown): string[] {
  switch (arity.kind) {
    case "one":
      return [attached(option, value as Scalar)];
    case "optional":
      return value === true ? [option] : [attached(option, value as Scalar)];
    case "exactly":
      if (arity.count === 1) return [attached(option, (value as Scalar[])[0] as Scalar)];
      return [option, ...(value as Scalar[]).map(text)];
    case "any":
    case "some":
      return [option, ...(value as Scalar[]).map(text)];
  }
}

/**
 * The argv tokens one validated parameter value becomes; an empty list means "not given".
 * Options are keyed by option string, never by dest, since conda shares dests between options.
 */
export function paramTokens(param: Param, value: unknown): string[] {
  if (value === undefined) return [];
  const shape = param.shape;
  const option = param.option ?? "";
  switch (shape.kind) {
    case "flag":
      return value === true ? [option] : [];
    case "count":
      return Array.from({ length: value as number }, () => option);
    case "toggle":
      return [value === true ? option : shape.negativeOption];
    case "option":
      if (!shape.repeat) return occurrenceTokens(option, shape.arity, value);
      return (value as unknown[]).flatMap((occurrence) =>
        occurrenceTokens(option, shape.arity, occurrence),
      );
    case "extend_const":
      return [option, ...(value as Scalar[]).map(text)];
    case "positional":
      return Array.isArray(value) ? value.map(text) : [text(value as Scalar)];
    case "passthrough":
      return value as string[];
  }
}

/**
 * Turns validated tool arguments into the argv that follows the conda executable: the command
 * path, options (those with open-ended value lists first, so a fixed option ends them), then
 * positionals in parse order. A `--` separates positionals only when an open-ended list would
 * otherwise swallow them, and goes before a passthrough list whose command strips it.
 */
export function buildArgv(command: CatalogCommand, args: Record<string, unknown>): string[] {
  const open: string[] = [];
  const fixed: string[] = [];
  const positionals: string[] = [];
  let passthrough: string[] = [];
  for (const param of command.params) {
    const tokens = paramTokens(param, args[param.name]);
    if (tokens.length === 0) continue;
    if (param.shape.kind === "passthrough")
      passthrough = param.shape.separator ? ["--", ...tokens] : tokens;
    else if (param.option === null) positionals.push(...tokens);
    else if (isVariableLength(param)) open.push(...tokens);
    else fixed.push(...tokens);
  }
  const needsSeparator = positionals.length > 0 && open.length > 0 && fixed.length === 0;
  return [
    ...command.path,
    ...open,
    ...fixed,
    ...(needsSeparator ? ["--"] : []),
    ...positionals,
    ...passthrough,
  ];
}
