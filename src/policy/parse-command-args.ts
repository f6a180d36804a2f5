import type { Param } from "../catalog/catalog-types.ts";

/** Arguments recovered from a raw command line, keyed like tool arguments. */
export interface ParsedCommandArgs {
  args: Record<string, unknown>;
  /** Option tokens that name no known option (conda's hidden options land here too). */
  unknownOptions: string[];
}

interface OptionSpec {
  name: string;
  kind: "flag" | "count" | "value" | "extend";
  /** Fewest and most values one occurrence takes (`Infinity` for open lists). */
  min: number;
  max: number;
  repeat: boolean;
  /** `--no-x` of a BooleanOptionalAction: stores false. */
  negative: boolean;
}

interface PositionalSpec {
  name: string;
  min: number;
  max: number;
  passthrough: boolean;
}

interface Specs {
  options: Map<string, OptionSpec>;
  positionals: PositionalSpec[];
  /** A greedy plugin parser: every token is a raw argument. */
  greedy: boolean;
}

function flag(name: string, negative = false): OptionSpec {
  return { name, kind: "flag", min: 0, max: 0, repeat: false, negative };
}

function value(name: string, min: number, max: number, repeat = false): OptionSpec {
  return { name, kind: "value", min, max, repeat, negative: false };
}

function specsFromParams(params: readonly Param[]): Specs {
  const options = new Map<string, OptionSpec>();
  const positionals: PositionalSpec[] = [];
  let greedy = false;
  for (const param of params) {
    const shape = param.shape;
    if (param.option === null) {
      if (shape.kind === "passthrough") {
        greedy ||= shape.greedy;
        positionals.push({ name: param.name, min: 0, max: Infinity, passthrough: true });
      } else if (shape.kind === "positional") {
        const [min, max] = bounds(shape.arity);
        positionals.push({ name: param.name, min, max, passthrough: false });
      }
      continue;
    }
    for (const optionString of param.optionStrings) {
      let spec: OptionSpec;
      switch (shape.kind) {
        case "flag":
          spec = flag(param.name);
          break;
        case "toggle":
          spec = flag(param.name, optionString === shape.negativeOption);
          break;
        case "count":
          spec = { ...flag(param.name), kind: "count" };
          break;
        case "extend_const":
          spec = { ...value(param.name, 0, Infinity), kind: "extend" };
          break;
        case "option": {
          const [min, max] = bounds(shape.arity);
          spec = value(param.name, min, max, shape.repeat);
          break;
        }
        default:
          continue;
      }
      options.set(optionString, spec);
    }
  }
  return { options, positionals, greedy };
}

function bounds(arity: Extract<Param["shape"], { kind: "option" }>["arity"]): [number, number] {
  switch (arity.kind) {
    case "one":
      return [1, 1];
    case "optional":
      return [0, 1];
    case "any":
      return [0, Infinity];
    case "some":
      return [1, Infinity];
    case "exactly":
      return [arity.count, arity.count];
  }
}

// Without the catalog's params: the options of conda 26.7 that take values (so their values are
// not read as positionals), and the short letters the policy needs. Where conda reuses a letter
// (`clean -p` is a flag), reading it as taking a value can only hide a lowering flag such as
// `-d`, which errs on the cautious side.
const FALLBACK_VALUE_OPTIONS: readonly [string, number, number][] = [
  ["name", 1, 1],
  ["prefix", 1, 1],
  ["file", 1, 1],
  ["channel", 1, 1],
  ["clone", 1, 1],
  ["cwd", 1, 1],
  ["console", 1, 1],
  ["format", 1, 1],
  ["solver", 1, 1],
  ["subdir", 1, 1],
  ["platform", 1, 1],
  ["revision", 1, 1],
  ["repodata-fn", 1, 1],
  ["exclude-newer", 1, 1],
  ["pkg-name", 1, 1],
  ["pkg-version", 1, 1],
  ["pkg-build", 1, 1],
  ["fields", 1, 1],
  ["shortcuts-only", 1, 1],
  ["experimental", 1, 1],
  ["env-spec", 1, 1],
  ["environment-specifier", 1, 1],
  ["clear", 1, 1],
  ["remove-key", 1, 1],
  ["show", 0, Infinity],
  ["describe", 0, Infinity],
  ["get", 0, Infinity],
  ["which", 1, Infinity],
  ["set", 2, 2],
  ["append", 2, 2],
  ["prepend", 2, 2],
  ["add", 2, 2],
  ["remove", 2, 2],
];

const FALLBACK_SHORT: readonly [string, OptionSpec][] = [
  ["-n", value("name", 1, 1)],
  ["-p", value("prefix", 1, 1)],
  ["-f", value("file", 1, 1)],
  ["-c", value("channel", 1, 1)],
  ["-w", value("which", 1, Infinity)],
  ["-d", flag("dry_run")],
  ["-y", flag("yes")],
  ["-r", flag("reset")],
  ["-u", flag("untracked")],
  ["-q", flag("quiet")],
  ["-v", { ...flag("verbose"), kind: "count" }],
];

// Positionals the guards read.
const FALLBACK_POSITIONALS: ReadonlyMap<string, PositionalSpec[]> = new Map([
  ["rename", [{ name: "destination", min: 1, max: 1, passthrough: false }]],
  ["run", [{ name: "executable_call", min: 0, max: Infinity, passthrough: true }]],
]);

function fallbackSpecs(path: readonly string[]): Specs {
  const options = new Map<string, OptionSpec>(FALLBACK_SHORT);
  for (const [long, min, max] of FALLBACK_VALUE_OPTIONS) {
    options.set(`--${long}`, value(propertyName(long), min, max, min === 2));
  }
  return {
    options,
    positionals: FALLBACK_POSITIONALS.get(path.join(" ")) ?? [],
    greedy: false,
  };
}

/** The catalog's property naming: `--dry-run` → `dry_run`. */
function propertyName(option: string): string {
  return option.replace(/^-+/, "").replace(/[^A-Za-z0-9_]/g, "_");
}

const NEGATIVE_NUMBER = /^-\d+$|^-\d*\.\d+$/;

/** argparse's test: `-` alone and negative numbers are values, not options. */
function looksLikeOption(token: string): boolean {
  return token.length > 1 && token.startsWith("-") && !NEGATIVE_NUMBER.test(token);
}

/**
 * Recovers tool-style arguments from the tokens after a command path, the way argparse reads
 * them: `--opt=value`, unique abbreviations of long options, clustered short flags (`-dy`),
 * attached short values (`-nbase`), `--` ending options, and a REMAINDER positional taking the
 * rest. Best effort, for the policy only: with `params` null it falls back to conda 26.7's
 * common options. Unknown options are kept by their derived name so callers can be cautious.
 */
export function parseCommandArgs(
  tokens: readonly string[],
  params: readonly Param[] | null,
  path: readonly string[] = [],
): ParsedCommandArgs {
  const specs = params ? specsFromParams(params) : fallbackSpecs(path);
  const args: Record<string, unknown> = {};
  const unknownOptions: string[] = [];
  if (specs.greedy) {
    const rest = specs.positionals.find((p) => p.passthrough);
    if (rest) args[rest.name] = [...tokens];
    return { args, unknownOptions };
  }

  const positionalTokens: string[] = [];
  const passthroughIndex = specs.positionals.findIndex((p) => p.passthrough);
  let rest: string[] | null = null;
  let i = 0;

  const takeValues = (spec: OptionSpec): string[] => {
    const values: string[] = [];
    while (values.length < spec.max && i < tokens.length) {
      const next = tokens[i] as string;
      if (next === "--" || looksLikeOption(next)) break;
      values.push(next);
      i++;
    }
    return values;
  };

  const store = (spec: OptionSpec, values: string[] | null): void => {
    switch (spec.kind) {
      case "flag":
        args[spec.name] = !spec.negative;
        return;
      case "count":
        args[spec.name] =
          (typeof args[spec.name] === "number" ? (args[spec.name] as number) : 0) + 1;
        return;
      case "extend":
        args[spec.name] = [
          ...(Array.isArray(args[spec.name]) ? (args[spec.name] as string[]) : []),
          ...(values ?? []),
        ];
        return;
      case "value": {
        const list = values ?? [];
        const occurrence =
          spec.max === 1 && spec.min === 1
            ? (list[0] ?? "")
            : spec.max === 1
              ? (list[0] ?? true)
              : list;
        if (spec.repeat) {
          const earlier = Array.isArray(args[spec.name]) ? (args[spec.name] as unknown[]) : [];
          args[spec.name] = [...earlier, occurrence];
        } else {
          args[spec.name] = occurrence;
        }
      }
    }
  };

  const resolveLong = (option: string): OptionSpec | null => {
    const exact = specs.options.get(option);
    if (exact) return exact;
    // argparse accepts any unambiguous prefix of a long option.
    const candidates = new Map<string, OptionSpec>();
    for (const [known, spec] of specs.options) {
      if (known.startsWith("--") && known.startsWith(option)) candidates.set(spec.name, spec);
    }
    return candidates.size === 1 ? ([...candidates.values()][0] as OptionSpec) : null;
  };

  while (i < tokens.length) {
    const token = tokens[i] as string;
    i++;
    if (rest) {
      rest.push(token);
      continue;
    }
    if (token === "--") {
      positionalTokens.push(...tokens.slice(i));
      break;
    }
    if (!looksLikeOption(token)) {
      // A REMAINDER positional starts at the first positional token once the positionals
      // before it are filled, and swallows everything after it, options included.
      if (passthroughIndex !== -1 && positionalTokens.length >= passthroughIndex) {
        rest = [token];
        continue;
      }
      positionalTokens.push(token);
      continue;
    }
    if (token.startsWith("--")) {
      const eq = token.indexOf("=");
      const option = eq === -1 ? token : token.slice(0, eq);
      const spec = resolveLong(option);
      if (!spec) {
        unknownOptions.push(option);
        args[propertyName(option)] = eq === -1 ? true : token.slice(eq + 1);
        continue;
      }
      store(spec, eq === -1 ? takeValues(spec) : [token.slice(eq + 1)]);
      continue;
    }
    // A short option, or a cluster: flags until one that takes a value, which gets the rest.
    for (let j = 1; j < token.length; j++) {
      const option = `-${token[j]}`;
      const spec = specs.options.get(option);
      if (!spec) {
        unknownOptions.push(option);
        args[propertyName(option)] = true;
        break;
      }
      if (spec.max === 0) {
        store(spec, null);
        continue;
      }
      const attached = token.slice(j + 1);
      store(spec, attached === "" ? takeValues(spec) : [attached.replace(/^=/, "")]);
      break;
    }
  }

  assignPositionals(specs.positionals, positionalTokens, rest, args);
  return { args, unknownOptions };
}

/** Deals positional tokens out in parse order; open lists leave room for later fixed ones. */
function assignPositionals(
  positionals: readonly PositionalSpec[],
  tokens: string[],
  rest: string[] | null,
  args: Record<string, unknown>,
): void {
  let next = 0;
  positionals.forEach((spec, index) => {
    if (spec.passthrough) {
      if (rest) args[spec.name] = rest;
      return;
    }
    const laterMin = positionals
      .slice(index + 1)
      .reduce((sum, p) => sum + (p.passthrough ? 0 : p.min), 0);
    const available = Math.max(0, tokens.length - next - laterMin);
    const count = Math.min(spec.max, available);
    if (count === 0) return;
    const taken = tokens.slice(next, next + count);
    next += count;
    args[spec.name] = spec.max === 1 ? taken[0] : taken;
  });
}
