import type {
  IndexedParser,
  IntrospectionDocument,
  IntrospectionResult,
  RawAction,
  RawParser,
} from "../introspection-payload.ts";

/**
 * The document with every parser's action indexes replaced by the actions they name (checked
 * to exist by the document's schema). Parsers that share an option share its one description.
 */
export function expandDocument(document: IntrospectionDocument): IntrospectionResult {
  const { actions, tree, ...facts } = document;
  return { ...facts, tree: expandParser(tree, actions) };
}

/** One parser and those below it with their actions in place, taken from `actions`. */
export function expandParser(parser: IndexedParser, actions: readonly RawAction[]): RawParser {
  return {
    ...parser,
    actions: parser.actions.map((index) => actions[index] as RawAction),
    subcommands: parser.subcommands.map((sub) => expandParser(sub, actions)),
  };
}
