import type { CatalogCommand, Param } from "../catalog/catalog-types.ts";

// A command's setters by dest, found once per params list: a cold start asks for every param of
// every tool, and a scan of all of a command's params each time made that quadratic.
const settersByDest = new WeakMap<readonly Param[], Map<string, Param[]>>();

/**
 * The other options that set the same conda setting as a param (`--strict-channel-priority`
 * and `--no-channel-priority`) outside an exclusive group they share: given together, argv
 * order would decide, and JSON objects carry no order a client can rely on. Options that add
 * to one shared list combine, so they have no partners.
 */
export function settingPartners(command: CatalogCommand, param: Param): Param[] {
  if (!isSetter(param)) return [];
  const sameDest = settersOf(command).get(param.dest) ?? [];
  if (sameDest.length < 2) return [];
  return sameDest.filter(
    (other) =>
      other !== param &&
      (param.exclusiveGroup === null || other.exclusiveGroup !== param.exclusiveGroup),
  );
}

/**
 * The options of each conda setting that more than one option sets, unless one exclusive group
 * holds them all (the group already says so): at most one of each list may be given.
 */
export function settingSets(command: CatalogCommand): string[][] {
  return [...settersOf(command).values()]
    .filter(
      (setters) =>
        setters.length >= 2 &&
        (setters[0]?.exclusiveGroup === null ||
          setters.some((p) => p.exclusiveGroup !== setters[0]?.exclusiveGroup)),
    )
    .map((setters) => setters.map((p) => p.name));
}

function settersOf(command: CatalogCommand): Map<string, Param[]> {
  let byDest = settersByDest.get(command.params);
  if (byDest === undefined) {
    byDest = new Map();
    for (const param of command.params) {
      if (!isSetter(param)) continue;
      const setters = byDest.get(param.dest);
      if (setters) setters.push(param);
      else byDest.set(param.dest, [param]);
    }
    settersByDest.set(command.params, byDest);
  }
  return byDest;
}

function isSetter(param: Param): boolean {
  const shape = param.shape;
  return !((shape.kind === "option" && shape.repeat) || shape.kind === "extend_const");
}
