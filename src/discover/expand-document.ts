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
  const expand = (parser: IndexedParser): RawParser => ({
    ...parser,
    actions: parser.actions.map((index) => actions[index] as RawAction),
    subcommands: parser.subcommands.map(expand),
  });
  return { ...facts, tree: expand(tree) };
}
