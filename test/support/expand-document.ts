import {
  expandParser,
  type IntrospectionDocument,
  type IntrospectionResult,
} from "../../src/introspection-payload.ts";

/**
 * The document with every parser's action indexes replaced by the actions they name (checked
 * to exist by the document's schema). Parsers that share an option share its one description.
 */
export function expandDocument(document: IntrospectionDocument): IntrospectionResult {
  const { actions, tree, ...facts } = document;
  return { ...facts, tree: expandParser(tree, actions) };
}
