import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

/**
 * The JSON Schema validator a `Server` is given: the SDK's Ajv one, built on first use. The SDK
 * checks only elicitation answers with it, which this server never asks for, and building Ajv
 * takes about 4 ms of every server (one per HTTP session) before its first answer.
 */
export function lazyJsonSchemaValidator(
  create: () => jsonSchemaValidator = () => new AjvJsonSchemaValidator(),
): jsonSchemaValidator {
  let built: jsonSchemaValidator | null = null;
  return {
    getValidator: (schema) => {
      built ??= create();
      return built.getValidator(schema);
    },
  };
}
