import type { RawParser } from "../introspection-payload.ts";
import type { CatalogCommand, CommandArgument } from "./catalog-types.ts";
import { behaviourOf } from "./classify-action.ts";

/** A JSON value with every string in it redacted. */
function redactValue(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redact));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, redactValue(item, redact)]),
    );
  }
  return value;
}

/** The parser of a command path, found from the root. */
function parserAt(root: RawParser, path: readonly string[]): RawParser | null {
  let node: RawParser | undefined = root;
  for (const name of path) node = node?.subcommands.find((s) => s.path.at(-1) === name);
  return node ?? null;
}

/**
 * Every argparse action of a command's parser as conda declares it, each with the tool
 * property that serves it (matched by option string, or by dest for positionals), all text
 * redacted. Built only for conda://capabilities, so start-up does not pay for it.
 */
export function listArguments(
  root: RawParser,
  command: CatalogCommand,
  redact: (text: string) => string,
): CommandArgument[] {
  const params = command.params;
  return (parserAt(root, command.path)?.actions ?? []).map((action) => {
    const param = params.find((p) =>
      action.option_strings.length === 0
        ? p.option === null && p.dest === action.dest
        : p.option !== null && action.option_strings.includes(p.option),
    );
    const argument: CommandArgument = {
      property: param?.name ?? null,
      option_strings: action.option_strings.map(redact),
      dest: redact(action.dest),
      class: redact(action.class),
      recognised_as: behaviourOf(action),
      mro: action.mro.map(redact),
      nargs: action.nargs,
      choices: action.choices === null ? null : (redactValue(action.choices, redact) as unknown[]),
      metavar: action.metavar === null ? null : (redactValue(action.metavar, redact) as string),
      help: action.help_suppressed || action.help === null ? null : redact(action.help),
      required: action.required,
      hidden: action.help_suppressed,
      exclusive_group: action.mutually_exclusive_group,
      deprecated: action.deprecated ? redact(action.deprecated.message) : null,
    };
    if (!action.default_is_conda_NULL && !action.default_is_suppress && action.default !== null)
      argument.default = redactValue(action.default, redact);
    return argument;
  });
}
