import type { CatalogCommand, Param } from "../catalog/catalog-types.ts";

/**
 * The other options that set the same conda setting as a param (`--strict-channel-priority`
 * and `--no-channel-priority`) outside an exclusive group they share: given together, argv
 * order would decide, and JSON objects carry no order a client can rely on. Options that add
 * to one shared list combine, so they have no partners.
 */
export function settingPartners(command: CatalogCommand, param: Param): Param[] {
  if (!isSetter(param)) return [];
  return command.params.filter(
    (other) =>
      other !== param &&
      other.dest === param.dest &&
      isSetter(other) &&
      (param.exclusiveGroup === null || other.exclusiveGroup !== param.exclusiveGroup),
  );
}

function isSetter(param: Param): boolean {
  const shape = param.shape;
  return !((shape.kind === "option" && shape.repeat) || shape.kind === "extend_const");
}
