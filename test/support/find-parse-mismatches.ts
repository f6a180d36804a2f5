import type { CatalogCommand, Param } from "../../src/catalog/catalog-types.ts";
import type { RawAction, RawParser } from "../../src/introspection-payload.ts";
import { paramTokens } from "../../src/schema/build-argv.ts";
import type { ParseOutcome } from "./parse-with-target.ts";

const NULL = { $null: true };

/** The introspected parser of a command path, found from the root. */
export function rawParserAt(root: RawParser, path: string[]): RawParser {
  let node = root;
  for (const name of path) {
    const next = node.subcommands.find((s) => s.path[s.path.length - 1] === name);
    if (!next) throw new Error(`no parser for ${path.join(" ")}`);
    node = next;
  }
  return node;
}

/** The options of the root parser and of every parser on the way to a command. */
function optionsOnPath(root: RawParser, path: string[]): RawAction[] {
  const parsers = path.map((_, i) => rawParserAt(root, path.slice(0, i + 1)));
  return [root, ...parsers].flatMap((parser) =>
    parser.actions.filter(
      (a) =>
        a.option_strings.length > 0 &&
        !a.default_is_suppress &&
        !a.mro.some((m) => m === "argparse._HelpAction" || m === "argparse._VersionAction"),
    ),
  );
}

/** The argparse action a param was generated from (options by option string, positionals by dest). */
export function rawActionOf(root: RawParser, command: CatalogCommand, param: Param): RawAction {
  const found = rawParserAt(root, command.path).actions.find((a) =>
    param.option === null
      ? a.option_strings.length === 0 && a.dest === param.dest
      : a.option_strings.includes(param.option),
  );
  if (!found) throw new Error(`no action for ${param.name}`);
  return found;
}

/** conda's enum consts come as repr (`<DepsModifier.NO_DEPS: 'no_deps'>`); the parse helper gives their value. */
function constValue(action: RawAction): unknown {
  if (action.const !== null) return action.const;
  const match = /: '([^']*)'>$/.exec(action.const_repr);
  return match ? match[1] : null;
}

function scalar(action: RawAction, value: unknown): unknown {
  if (action.type === "comma_separated_stripped") {
    return String(value)
      .split(",")
      .map((s) => s.trim());
  }
  return value;
}

/** An action's default as parse-with-target.py encodes it (conda's NULL as `{"$null": true}`). */
export function defaultOf(action: RawAction): unknown {
  return action.default_is_conda_NULL ? NULL : action.default;
}

/** What the target's namespace must hold at the param's dest after parsing our argv. */
export function expectedValue(action: RawAction, param: Param, value: unknown): unknown {
  const shape = param.shape;
  switch (shape.kind) {
    case "flag":
      return value === true ? constValue(action) : defaultOf(action);
    case "count":
      return value === 0 ? defaultOf(action) : value;
    case "toggle":
      return value;
    case "option": {
      const one = (occurrence: unknown) => {
        if (shape.arity.kind === "optional" && occurrence === true) return constValue(action);
        return Array.isArray(occurrence)
          ? occurrence.map((o) => scalar(action, o))
          : scalar(action, occurrence);
      };
      if (!shape.repeat) return one(value);
      const values = (value as unknown[]).map(one);
      if (values.length === 0) return defaultOf(action);
      return [...(Array.isArray(action.default) ? action.default : []), ...values];
    }
    case "extend_const":
      return (value as unknown[]).length === 0 ? [constValue(action)] : value;
    case "positional":
      // An empty `*` list passes nothing: argparse then uses the default, or [] for None.
      if (Array.isArray(value) && value.length === 0)
        return action.default === null && !action.default_is_conda_NULL ? [] : defaultOf(action);
      return Array.isArray(value) ? value.map((v) => scalar(action, v)) : scalar(action, value);
    case "passthrough":
      return value;
  }
}

/**
 * Compares how the target's argparse took an argv with the validated arguments it was built
 * from: one line per refusal or per param whose dest holds anything but the intended value.
 */
export function findParseMismatches(
  root: RawParser,
  command: CatalogCommand,
  args: Record<string, unknown>,
  argv: string[],
  outcome: ParseOutcome | undefined,
): string[] {
  if (!outcome?.ok) {
    return [`${JSON.stringify(argv)} was refused: ${outcome?.stderr.trim().split("\n").pop()}`];
  }
  const failures: string[] = [];
  const given = command.params.filter((p) => p.name in args);
  // Options that share a dest combine their lists or let the last win (conda keys them by
  // option string): only their own dest is exempt from the check below.
  const sharesDest = (p: Param) => given.some((q) => q !== p && q.dest === p.dest);
  for (const param of given) {
    if (sharesDest(param)) continue;
    const greedy = param.shape.kind === "passthrough" && param.shape.greedy;
    const dest = greedy ? "_args" : param.dest;
    // A greedy parser has no action: conda hands it the leftover arguments as they are.
    const expected = greedy
      ? args[param.name]
      : expectedValue(rawActionOf(root, command, param), param, args[param.name]);
    let got = outcome.namespace[dest];
    // Depending on the Python, argparse keeps the `--` before the command that conda's run strips.
    if (param.shape.kind === "passthrough" && param.shape.separator && Array.isArray(got))
      got = got[0] === "--" ? got.slice(1) : got;
    if (!Bun.deepEquals(got, expected)) {
      failures.push(
        `${command.toolName} ${param.name}: argv ${JSON.stringify(argv)} gave ${JSON.stringify(got)}, wanted ${JSON.stringify(expected)}`,
      );
    }
  }
  // No setting may change that no argument asked for (a passed-through `--json` would).
  const givenDests = new Set(
    command.params.filter((p) => paramTokens(p, args[p.name]).length > 0).map((p) => p.dest),
  );
  for (const action of optionsOnPath(root, command.path)) {
    // Of options sharing a dest, argparse takes the default of the first.
    if (givenDests.has(action.dest)) continue;
    givenDests.add(action.dest);
    const got = outcome.namespace[action.dest];
    if (!Bun.deepEquals(got, defaultOf(action))) {
      failures.push(
        `${command.toolName}: argv ${JSON.stringify(argv)} set ${action.option_strings.join("/")} to ${JSON.stringify(got)}, which no argument asked for`,
      );
    }
  }
  return failures;
}
