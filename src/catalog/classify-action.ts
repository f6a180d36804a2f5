import type { RawAction } from "../introspection-payload.ts";
import type { Arity, ParamShape, ValueSpec } from "./catalog-types.ts";

/** What the catalog does with one argparse action. */
export type ActionVerdict =
  | { kind: "param"; shape: ParamShape }
  /** Help, version and subparsers actions: structure, not parameters. */
  | { kind: "skip" }
  | { kind: "unsupported"; reason: string };

// Behaviour is decided by the most derived known class in the MRO, so subclasses and conda's
// deprecation wrappers (which keep the wrapped class in their MRO) are understood.
const SKIPPED = new Set([
  "argparse._HelpAction",
  "argparse._VersionAction",
  "argparse._SubParsersAction",
]);

const KNOWN_BEHAVIOURS = [
  "argparse._HelpAction",
  "argparse._VersionAction",
  "argparse._SubParsersAction",
  "argparse.BooleanOptionalAction",
  "argparse._CountAction",
  "argparse._StoreConstAction",
  "argparse._AppendConstAction",
  "argparse._ExtendAction",
  "argparse._AppendAction",
  "conda.cli.actions.ExtendConstAction",
  "conda.cli.helpers.LazyChoicesAction",
  "argparse._StoreAction",
] as const;

type Behaviour = (typeof KNOWN_BEHAVIOURS)[number];
const KNOWN: ReadonlySet<string> = new Set(KNOWN_BEHAVIOURS);

/** The class an action was recognised by: the first MRO entry (most derived) whose behaviour we know. */
export function behaviourOf(action: RawAction): Behaviour | null {
  for (const name of action.mro.length > 0 ? action.mro : [action.class]) {
    if (KNOWN.has(name)) return name as Behaviour;
  }
  return null;
}

/** argparse nargs → our arity, or null when the nargs cannot be a typed value list. */
export function arityOf(nargs: RawAction["nargs"]): Arity | null {
  if (nargs === null) return { kind: "one" };
  if (typeof nargs === "number") return nargs >= 1 ? { kind: "exactly", count: nargs } : null;
  switch (nargs) {
    case "?":
      return { kind: "optional" };
    case "*":
      return { kind: "any" };
    case "+":
      return { kind: "some" };
    default:
      return null;
  }
}

/** The JSON value type and choices of an action's values. */
function valueSpecOf(action: RawAction): ValueSpec | { unsupported: string } {
  let type: ValueSpec["type"] = "string";
  if (action.type === "int") type = "integer";
  else if (action.type === "float") type = "number";
  // Other `type=` callables (conda's comma splitter, paths) take the raw string: conda converts it.
  const choices = action.choices;
  if (choices === null || choices === undefined) return { type, choices: null };
  const usable = choices.filter(
    (c): c is string | number =>
      typeof c === "string" || (typeof c === "number" && Number.isFinite(c)),
  );
  if (usable.length === 0 || usable.length !== choices.length) {
    return { unsupported: "its choices are not plain strings or numbers" };
  }
  const numeric = usable.every((c) => typeof c === "number");
  if (numeric && type === "string") type = "number";
  return { type, choices: usable };
}

/** Decides how one argparse action is represented in a typed tool. */
export function classifyAction(action: RawAction): ActionVerdict {
  const behaviour = behaviourOf(action);
  if (behaviour === null) {
    return { kind: "unsupported", reason: `action class ${action.class} is not understood` };
  }
  if (SKIPPED.has(behaviour)) return { kind: "skip" };

  const isOption = action.option_strings.length > 0;
  if (
    !isOption &&
    behaviour !== "argparse._StoreAction" &&
    behaviour !== "conda.cli.helpers.LazyChoicesAction"
  ) {
    return { kind: "unsupported", reason: `positional ${action.dest} uses ${action.class}` };
  }

  switch (behaviour) {
    case "argparse.BooleanOptionalAction": {
      const negative = action.option_strings.find((o) => o.startsWith("--no-"));
      if (negative === undefined) {
        return { kind: "unsupported", reason: `${action.option_strings[0]} has no --no- form` };
      }
      return { kind: "param", shape: { kind: "toggle", negativeOption: negative } };
    }
    case "argparse._CountAction":
      return { kind: "param", shape: { kind: "count" } };
    case "argparse._StoreConstAction":
    case "argparse._AppendConstAction":
      return { kind: "param", shape: { kind: "flag" } };
    case "conda.cli.actions.ExtendConstAction": {
      const value = valueSpecOf(action);
      if ("unsupported" in value) return { kind: "unsupported", reason: value.unsupported };
      return { kind: "param", shape: { kind: "extend_const", value } };
    }
    default:
      return valueParam(action, behaviour);
  }
}

/** Store, LazyChoices, append and extend actions: values with an arity. */
function valueParam(action: RawAction, behaviour: Behaviour): ActionVerdict {
  const label = action.option_strings[0] ?? action.dest;
  if (!action.option_strings.length && action.nargs === "...") {
    // Whether a `--` may go first and what conda's pre-parser takes is the command's matter.
    return {
      kind: "param",
      shape: { kind: "passthrough", greedy: false, separator: false, preParser: null },
    };
  }
  const arity = arityOf(action.nargs);
  if (arity === null) {
    return { kind: "unsupported", reason: `${label} has nargs ${String(action.nargs)}` };
  }
  const value = valueSpecOf(action);
  if ("unsupported" in value)
    return { kind: "unsupported", reason: `${label}: ${value.unsupported}` };
  if (action.option_strings.length === 0) {
    return { kind: "param", shape: { kind: "positional", arity, value } };
  }
  const repeat = behaviour === "argparse._AppendAction";
  return { kind: "param", shape: { kind: "option", arity, repeat, value } };
}
