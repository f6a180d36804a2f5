/** The first way a document differs from IntrospectionResult, at every depth a stage walks, or null. */
import { isJsonObject } from "../is-json-object.ts";
import { isStringList } from "../is-string-list.ts";
export function introspectionShapeProblem(document: unknown): string | null {
  if (!isJsonObject(document) || document.ok !== true) return "expected an object with ok true";
  for (const key of ["conda_version", "python_version", "python_executable", "root_prefix"]) {
    if (typeof document[key] !== "string") return `expected \`${key}\` to be a string`;
  }
  for (const key of ["site_dirs", "envs_dirs"]) {
    if (!isStringList(document[key])) return `expected \`${key}\` to be a list of strings`;
  }
  if (!Array.isArray(document.external_plugins)) return "expected `external_plugins` to be a list";
  if (document.completion !== undefined && !isJsonObject(document.completion)) {
    return "expected `completion` to be an object";
  }
  const pre = document.pre_parser;
  if (
    pre !== null &&
    !(
      isJsonObject(pre) &&
      isStringList(pre.option_strings) &&
      typeof pre.allow_abbrev === "boolean" &&
      typeof pre.prefix_chars === "string"
    )
  ) {
    return "expected `pre_parser` to be null or the pre-parser's options";
  }
  const tree = document.tree;
  if (!isJsonObject(tree) || !Array.isArray(tree.path) || tree.path.length !== 0) {
    return "expected `tree` to be the root parser";
  }
  return parserProblem(tree, "tree");
}

/** Checks the lists every stage walks, at every depth of the tree. */
function parserProblem(parser: Record<string, unknown>, where: string): string | null {
  if (typeof parser.command !== "string" || !isStringList(parser.path)) {
    return `expected \`${where}\` to name its command and path`;
  }
  for (const key of ["actions", "subcommands", "aliases", "mutually_exclusive_groups"]) {
    const list = parser[key];
    if (!Array.isArray(list) || !list.every(isObjectOrString)) {
      return `expected \`${where}.${key}\` to be a list`;
    }
  }
  for (const [index, action] of (parser.actions as unknown[]).entries()) {
    if (
      !isJsonObject(action) ||
      !isStringList(action.option_strings) ||
      typeof action.dest !== "string"
    ) {
      return `expected \`${where}.actions[${index}]\` to be an action`;
    }
  }
  for (const [index, child] of (parser.subcommands as unknown[]).entries()) {
    if (!isJsonObject(child)) return `expected \`${where}.subcommands[${index}]\` to be a parser`;
    const problem = parserProblem(child, `${where}.subcommands[${index}]`);
    if (problem) return problem;
  }
  return null;
}

function isObjectOrString(value: unknown): boolean {
  return isJsonObject(value) || typeof value === "string";
}
