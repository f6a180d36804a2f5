import type { CatalogCommand } from "../../src/catalog/catalog-types.ts";
import {
  buildInputJsonSchema,
  buildValidator,
  type SchemaDetail,
  type SharedParamSchemas,
  type ToolSchema,
} from "../../src/schema/build-input-schema.ts";

/** A command's tool schema both ways, as the server builds each when it needs it. */
export function buildInputSchema(
  command: CatalogCommand,
  detail: SchemaDetail = "full",
  glossary: ReadonlyMap<string, string> = new Map(),
  shared: SharedParamSchemas = new Map(),
): ToolSchema {
  return {
    validator: buildValidator(command, detail, shared),
    jsonSchema: buildInputJsonSchema(command, detail, glossary, shared),
  };
}
