import { describe, expect, mock, test } from "bun:test";
import * as toJsonSchemaModule from "@valibot/to-json-schema";
import * as glossaryModule from "../../src/schema/shared-option-glossary.ts";

// What building a tool's definition takes, counted through pass-through wrappers: a call that
// only validates must do none of it (after a warm start, the snapshot has listed the tools).
const counts = { conversions: 0, glossaries: 0 };
const { toJsonSchema } = toJsonSchemaModule;
const { sharedOptionGlossary } = glossaryModule;
mock.module("@valibot/to-json-schema", () => ({
  ...toJsonSchemaModule,
  toJsonSchema: (...args: Parameters<typeof toJsonSchema>) => {
    counts.conversions++;
    return toJsonSchema(...args);
  },
}));
mock.module("../../src/schema/shared-option-glossary.ts", () => ({
  sharedOptionGlossary: (...args: Parameters<typeof sharedOptionGlossary>) => {
    counts.glossaries++;
    return sharedOptionGlossary(...args);
  },
}));

const { buildCatalog } = await import("../../src/catalog/build-catalog.ts");
const { buildToolRegistry } = await import("../../src/server/build-tool-registry.ts");
const { validateArgs } = await import("../../src/schema/validate-args.ts");
const { loadReferenceTree } = await import("../support/reference-tree.ts");

describe("a generated tool's entry", () => {
  test("validates a call without converting any schema to JSON Schema or making the glossary", async () => {
    const reference = await loadReferenceTree();
    const catalog = buildCatalog(reference.tree, { preParser: reference.pre_parser });
    const { entries, glossary } = buildToolRegistry(catalog, {
      allowExec: false,
      readOnlyTools: false,
      tools: null,
      cliCommandTool: null,
      schemaDetail: "compact",
    });
    const info = entries.find((e) => e.name === "conda_info");
    if (info?.kind !== "generated") throw new Error("no conda_info tool");
    counts.conversions = 0;
    counts.glossaries = 0;
    expect(validateArgs(info.command, info, { json: true }).success).toBe(true);
    expect(validateArgs(info.command, info, { json: "yes" }).success).toBe(false);
    expect(counts).toEqual({ conversions: 0, glossaries: 0 });
    // Its definition does both, the glossary once for every tool.
    expect(info.definition.inputSchema.type).toBe("object");
    expect(counts.conversions).toBeGreaterThan(0);
    expect(counts.glossaries).toBe(1);
    expect(glossary().size).toBeGreaterThan(0);
    expect(counts.glossaries).toBe(1);
  });
});
