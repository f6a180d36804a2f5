import type { ToolInputJsonSchema } from "./build-input-schema.ts";

/**
 * A converted valibot object schema as MCP's tools/list carries it: `properties` and `required`
 * always present, no properties beyond those.
 */
export function toolJsonSchema(converted: Record<string, unknown>): ToolInputJsonSchema {
  return {
    ...converted,
    type: "object",
    properties: (converted.properties ?? {}) as Record<string, object>,
    required: (converted.required ?? []) as string[],
    additionalProperties: false,
  };
}
