import type { IndexedParser, RawAction, RawParser } from "../introspection-payload.ts";

/** One parser and those below it with their actions in place, taken from `actions`. */
export function expandParser(parser: IndexedParser, actions: readonly RawAction[]): RawParser {
  return {
    ...parser,
    actions: parser.actions.map((index) => actions[index] as RawAction),
    subcommands: parser.subcommands.map((sub) => expandParser(sub, actions)),
  };
}
