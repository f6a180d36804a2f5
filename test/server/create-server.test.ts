import { describe, expect, test } from "bun:test";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { lazyJsonSchemaValidator } from "../../src/server/create-server.ts";

const SCHEMA = {
  type: "object",
  properties: { name: { type: "string" } },
  required: ["name"],
} as const;

describe("lazyJsonSchemaValidator", () => {
  test("builds the validator only when a schema is first compiled, and then once", () => {
    let built = 0;
    const validator = lazyJsonSchemaValidator(() => {
      built++;
      return new AjvJsonSchemaValidator();
    });
    expect(built).toBe(0);
    validator.getValidator(SCHEMA);
    validator.getValidator(SCHEMA);
    expect(built).toBe(1);
  });

  test("answers as the SDK's Ajv validator does", () => {
    const lazy: jsonSchemaValidator = lazyJsonSchemaValidator();
    const ajv = new AjvJsonSchemaValidator();
    for (const input of [{ name: "base" }, { name: 3 }, {}]) {
      const got = lazy.getValidator(SCHEMA)(input);
      const expected = ajv.getValidator(SCHEMA)(input);
      expect(got.valid).toBe(expected.valid);
      expect(got.data).toEqual(expected.data);
    }
    expect(lazy.getValidator(SCHEMA)({ name: 3 }).valid).toBe(false);
  });
});
