import { describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020.js";
import * as v from "valibot";
import { buildCatalog } from "../../src/catalog/build-catalog.ts";
import {
  advertisedJsonSchema,
  type SchemaDetail,
  type SharedParamSchemas,
  type ToolSchema,
} from "../../src/schema/build-input-schema.ts";
import { settingPartners } from "../../src/schema/setting-partners.ts";
import { sharedOptionGlossary } from "../../src/schema/shared-option-glossary.ts";
import { buildToolRegistry } from "../../src/server/build-tool-registry.ts";
import { buildInputSchema } from "../support/build-input-schema.ts";
import { loadReferenceTree } from "../support/reference-tree.ts";

const reference = await loadReferenceTree();
const catalog = buildCatalog(reference.tree, { preParser: reference.pre_parser });
const tools = catalog.commands.filter((c) => c.status === "tool");
const DETAILS: SchemaDetail[] = ["compact", "full"];

type Property = { description?: string; enum?: unknown[]; items?: Property; pattern?: string };

function registry(detail: SchemaDetail) {
  return buildToolRegistry(catalog, {
    allowExec: false,
    readOnlyTools: false,
    tools: null,
    cliCommandTool: null,
    schemaDetail: detail,
  });
}

/** Every `pattern` anywhere in a JSON value. */
function patternsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(patternsIn);
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === "pattern" && typeof inner === "string" ? [inner] : patternsIn(inner),
  );
}

describe.each(DETAILS)("advertised input schemas (%s detail)", (detail) => {
  const entries = registry(detail).entries;

  test("are valid JSON Schema 2020-12 to a strict validator, with a plain object root", () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    for (const { definition } of entries) {
      const schema = definition.inputSchema;
      expect(() => ajv.compile(schema)).not.toThrow();
      expect(schema.type).toBe("object");
      for (const key of ["oneOf", "anyOf", "allOf", "$ref", "$defs", "definitions", "$schema"]) {
        expect(schema).not.toHaveProperty(key);
      }
      expect(JSON.stringify(schema)).not.toContain("$ref");
    }
  });

  test("use no lookahead, lookbehind or backreference in any pattern", () => {
    const patterns = entries.flatMap(({ definition }) => patternsIn(definition.inputSchema));
    expect(patterns.length).toBeGreaterThan(0);
    for (const pattern of patterns) {
      expect(pattern).not.toMatch(/\(\?[=!<]|\\[1-9]|\\k</);
      expect(() => new RegExp(pattern, "u")).not.toThrow();
    }
  });
});

describe("the compact detail loses nothing a model needs", () => {
  const compact = new Map(registry("compact").entries.map((e) => [e.definition.name, e]));
  const full = new Map(registry("full").entries.map((e) => [e.definition.name, e]));

  test("every tool keeps its parameters, enums and required lists", () => {
    expect([...compact.keys()]).toEqual([...full.keys()]);
    for (const [name, entry] of compact) {
      const lean = entry.definition.inputSchema;
      const wide = full.get(name)?.definition.inputSchema;
      expect(Object.keys(lean.properties ?? {})).toEqual(Object.keys(wide?.properties ?? {}));
      expect(lean.required).toEqual(wide?.required);
      for (const [key, property] of Object.entries(lean.properties ?? {}) as [string, Property][]) {
        const other = ((wide?.properties ?? {}) as Record<string, Property>)[key];
        expect(property.enum ?? property.items?.enum).toEqual(other?.enum ?? other?.items?.enum);
        expect(property.pattern ?? property.items?.pattern).toEqual(
          other?.pattern ?? other?.items?.pattern,
        );
      }
    }
  });

  test("every exclusive group and every refused pair is stated once, in the tool's description", () => {
    let rules = 0;
    for (const command of tools) {
      const entry = compact.get(command.toolName ?? "");
      if (!entry) throw new Error(`no tool ${command.toolName}`);
      const description = entry.definition.description ?? "";
      const atMostOne = [...description.matchAll(/At most one of ([^.]+)\./g)].map((m) =>
        (m[1] as string).split(", "),
      );
      for (const group of command.exclusiveGroups) {
        rules++;
        const stated = description.includes(group.members.join(", "));
        expect(stated ? "" : `${command.toolName}: ${group.members.join(", ")}`).toBe("");
      }
      for (const param of command.params) {
        for (const partner of settingPartners(command, param)) {
          rules++;
          const stated = atMostOne.some(
            (names) => names.includes(param.name) && names.includes(partner.name),
          );
          expect(stated ? "" : `${command.toolName}: ${param.name} + ${partner.name}`).toBe("");
        }
      }
      const properties = entry.definition.inputSchema.properties as Record<string, Property>;
      for (const [name, property] of Object.entries(properties))
        expect(`${name}: ${property.description ?? ""}`).not.toMatch(/combined|Not with/);
      expect(JSON.stringify(entry.definition)).not.toContain("true passes");
    }
    expect(rules).toBeGreaterThan(30);
  });

  test("shared options are described once, in the server's instructions, and nowhere else", () => {
    const glossary = sharedOptionGlossary(tools);
    expect([...glossary.keys()]).toEqual(
      expect.arrayContaining(["json", "quiet", "verbose", "yes", "dry_run", "name", "prefix"]),
    );
    for (const { definition } of compact.values()) {
      const properties = (definition.inputSchema.properties ?? {}) as Record<string, Property>;
      for (const [name, sentence] of glossary) {
        expect(properties[name]?.description ?? "").not.toContain(sentence);
      }
    }
  });

  test("is far smaller than the full detail", () => {
    const bytes = (entries: typeof compact) =>
      [...entries.values()].reduce(
        (sum, { definition: { name, description, inputSchema } }) =>
          sum + JSON.stringify({ name, description, inputSchema }).length,
        0,
      );
    expect(bytes(compact)).toBeLessThan(bytes(full) * 0.5);
  });
});

describe.each(DETAILS)("params shared between tools (%s detail)", (detail) => {
  const glossary = detail === "compact" ? sharedOptionGlossary(tools) : new Map<string, string>();
  const shared: SharedParamSchemas = new Map();
  const together = tools.map((command) => buildInputSchema(command, detail, glossary, shared));
  const alone = tools.map((command) => buildInputSchema(command, detail, glossary));

  test("give every tool the JSON Schema and the checks it gets built alone", () => {
    expect(together.map((s) => s.jsonSchema)).toEqual(alone.map((s) => s.jsonSchema));
    for (const [i, schema] of together.entries()) {
      for (const args of [{}, { json: true }, { json: "yes" }, { unknown: 1 }]) {
        const got = v.safeParse(schema.validator, args).success;
        expect(got).toBe(v.safeParse((alone[i] as ToolSchema).validator, args).success);
      }
    }
  });

  test("advertise what their validator checks: its own conversion, with each description added", () => {
    for (const schema of together) {
      const converted = advertisedJsonSchema(schema.validator) as {
        properties: Record<string, object>;
      };
      const properties = Object.entries(schema.jsonSchema.properties);
      expect(properties.length).toBe(Object.keys(converted.properties).length);
      for (const [name, property] of properties) {
        const { description: _description, ...rules } = property as Property;
        expect(rules).toEqual(converted.properties[name] as never);
      }
    }
    const described = together.flatMap((s) => Object.values(s.jsonSchema.properties));
    expect(described.filter((p) => (p as Property).description).length).toBeGreaterThan(100);
    // Where valibot's own conversion puts a description piped before the metadata: before
    // `default` and `deprecated`, so tools/list keeps its bytes.
    const withDefault = described.filter((p) => "default" in p && "description" in p);
    expect(withDefault.length).toBeGreaterThan(0);
    for (const property of withDefault) {
      const keys = Object.keys(property);
      expect(keys.indexOf("description")).toBeLessThan(keys.indexOf("default"));
    }
  });

  test("are built once: the same option in two tools is one schema", () => {
    const params = tools.reduce((n, command) => n + command.params.length, 0);
    expect(shared.size).toBeLessThan(params / 2);
    const withJson = tools.flatMap((command, i) =>
      command.params.some((p) => p.name === "json")
        ? [(together[i] as ToolSchema).jsonSchema.properties.json]
        : [],
    );
    expect(withJson.length).toBeGreaterThan(2);
    expect(new Set(withJson).size).toBeLessThan(withJson.length);
  });
});
