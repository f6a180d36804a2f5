import fc from "fast-check";
import type { CatalogCommand, Param } from "../../src/catalog/catalog-types.ts";
import type { RawParser } from "../../src/introspection-payload.ts";
import type { DomainArb } from "./arbitrary-args.ts";
import { rawActionOf } from "./find-parse-mismatches.ts";
import type { ParseOutcome } from "./parse-with-target.ts";

// conda checks these values itself while it parses (MatchSpec in `_ValidatePackages`) or
// while it initialises its context from the parse (environment names, non-empty name and
// prefix); arguments of these params are drawn from their valid domain.
const packageName = fc.stringMatching(/^[a-z][a-z0-9]{0,5}([_-][a-z0-9]{1,4})?$/);
const version = fc.stringMatching(/^[0-9]{1,2}(\.[0-9]{1,2}){0,2}$/);

/** Valid package match specs in the spellings users write. */
export const matchSpecArb: fc.Arbitrary<string> = fc.oneof(
  packageName,
  fc
    .tuple(packageName, fc.constantFrom("=", "==", ">=", "<", "!="), version)
    .map((p) => p.join("")),
  fc.tuple(packageName, version).map(([name, v]) => `${name} ${v}`),
  fc.tuple(packageName, version).map(([name, v]) => `${name}[version='>=${v}']`),
  fc.tuple(packageName, packageName).map(([channel, name]) => `${channel}::${name}`),
);

/** Valid environment names: no space, `/`, `:` or `#`, not empty. */
export const envNameArb: fc.Arbitrary<string> = fc.stringMatching(/^[a-z0-9][a-z0-9_.+-]{0,10}$/);

/** Non-empty prefix paths, relative and absolute. */
export const prefixArb: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^\/tmp\/[a-z0-9_.-]{1,10}$/),
  fc.stringMatching(/^[a-z0-9_.][a-z0-9_./ -]{0,10}$/),
);

/** conda-completion's `--command-name`: its type callable takes `[A-Za-z0-9][A-Za-z0-9._-]*`. */
export const commandNameArb: fc.Arbitrary<string> = fc.stringMatching(
  /^[A-Za-z0-9][A-Za-z0-9._-]{0,10}$/,
);

const VALIDATE_PACKAGES = "conda.cli.helpers._ValidatePackages";
const COMMAND_NAME_TYPE = "conda_completion.cli.main.command_name_arg";

/** The domain of each param of a command whose values conda checks beyond argparse. */
export function condaDomainArb(root: RawParser, command: CatalogCommand): DomainArb {
  return (param: Param) => {
    // A greedy plugin's opaque list has no action of its own.
    if (param.shape.kind === "passthrough") return null;
    const action = rawActionOf(root, command, param);
    if (action.mro.includes(VALIDATE_PACKAGES)) return matchSpecArb;
    if (action.type_qualname === COMMAND_NAME_TYPE) return commandNameArb;
    if (param.option === "--name" && param.dest === "name") return envNameArb;
    if (param.option === "--prefix" && param.dest === "prefix") return prefixArb;
    return null;
  };
}

/**
 * Whether conda refused an argv for a value of its own domain (a package spec, an environment
 * name, an empty name or prefix, a plugin's own type check), not for its argparse shape.
 */
export function isDomainRefusal(outcome: ParseOutcome | undefined): boolean {
  if (outcome === undefined || outcome.ok) return false;
  // The exception's line, wherever a value with line breaks put it.
  return (
    /^conda\.exceptions\.(InvalidMatchSpec|CondaValueError|ArgumentError): /m.test(
      outcome.stderr,
    ) || /argument --command-name: Command name .* is not supported$/m.test(outcome.stderr)
  );
}
