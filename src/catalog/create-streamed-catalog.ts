import type { IntrospectionFacts, RawParser } from "../introspection-payload.ts";
import { type CatalogBuilder, createCatalogBuilder } from "./build-catalog.ts";
import type { Catalog } from "./catalog-types.ts";

/**
 * The catalog of a fresh introspection, built a command at a time as its lines are read (the
 * reader's onCommand), with the pre-parser its facts name; finish() gives null when no command
 * came, and the caller builds from the whole tree.
 */
export function createStreamedCatalog(secretValues: readonly string[]) {
  let builder: CatalogBuilder | null = null;
  return {
    onCommand(command: RawParser, facts: IntrospectionFacts): void {
      builder ??= createCatalogBuilder({ secretValues, preParser: facts.pre_parser });
      builder.add(command);
    },
    finish: (): Catalog | null => builder?.finish() ?? null,
  };
}
