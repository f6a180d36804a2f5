import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Catalog, CatalogCommand } from "../catalog/catalog-types.ts";
import type { CommandClass } from "../policy/check-policy.ts";
import { lookupCommandPolicy, type ResolvedCommandPolicy } from "../policy/classify-call.ts";
import type { ToolAnnotations } from "../policy/command-policies.ts";
import { selectTools } from "../policy/select-tools.ts";
import {
  COMPACT_EXECUTION_RESULT_JSON_SCHEMA,
  EXECUTION_RESULT_JSON_SCHEMA,
} from "../result/render-tool-result.ts";
import {
  buildInputJsonSchema,
  buildValidator,
  type SchemaDetail,
  type SharedParamSchemas,
  type ToolSchema,
} from "../schema/build-input-schema.ts";
import { settingSets } from "../schema/setting-partners.ts";
import { sharedOptionGlossary } from "../schema/shared-option-glossary.ts";
import { EXECUTE_TOOL_NAME } from "./execute-tool.ts";

/** What every listed tool has: its name, its command path (none for conda_execute), its class. */
interface EntryBase {
  name: string;
  path: readonly string[] | null;
  baseClass: CommandClass;
  /** Its MCP definition; a generated tool's is built on first read. */
  readonly definition: Tool;
}

/** A listed tool and what the server needs to call it. */
export type ToolEntry =
  | (EntryBase & {
      kind: "generated";
      command: CatalogCommand;
      /** Its arguments' validator, built on first read (without the definition's JSON Schema). */
      readonly validator: ToolSchema["validator"];
      /** The command's reviewed policy, resolved once. */
      policy: ResolvedCommandPolicy;
    })
  | (EntryBase & { kind: "execute" })
  | (EntryBase & { kind: "cli_command" });

/** What decides the listed surface. */
export interface RegistryOptions {
  allowExec: boolean;
  readOnlyTools: boolean;
  tools: readonly string[] | null;
  /** The completion tool's definition when conda-completion is installed, else null. */
  cliCommandTool: Tool | null;
  /** How much each generated tool's definition says (`--schema-detail`). */
  schemaDetail: SchemaDetail;
  /**
   * conda_execute's input schema, built from the server's limits when its definition is first
   * read; without it, no conda_execute.
   */
  executeInputSchema?: () => Tool["inputSchema"];
}

function describeTool(command: CatalogCommand, baseClass: CommandClass, detail: SchemaDetail) {
  const path = command.path.join(" ");
  const aliases = command.aliases.map((a) => `conda ${a.join(" ")}`);
  const required = command.exclusiveGroups
    .filter((g) => g.required)
    .map((g) => `Exactly one of ${g.members.join(", ")} is required.`);
  if (detail === "compact") {
    // Every combination the server refuses, once per tool rather than on each member.
    const atMostOne = [
      ...command.exclusiveGroups.filter((g) => !g.required).map((g) => g.members),
      ...settingSets(command),
    ].map((names) => `At most one of ${names.join(", ")}.`);
    return [
      command.summary || `Runs conda ${path}.`,
      ...(aliases.length ? [`Also: ${aliases.join(", ")}.`] : []),
      ...(command.plugin?.external ? [`Plugin: ${command.plugin.name}.`] : []),
      ...(baseClass !== "read" ? [`Class: ${baseClass}.`] : []),
      ...required,
      ...atMostOne,
    ].join(" ");
  }
  const lines = [command.summary || `Runs conda ${path}.`];
  lines.push(`Runs \`conda ${path}\`${aliases.length ? ` (also: ${aliases.join(", ")})` : ""}.`);
  if (command.plugin?.external) lines.push(`Provided by the plugin ${command.plugin.name}.`);
  if (baseClass !== "read") lines.push(`Policy class: ${baseClass}.`);
  lines.push(...required);
  return lines.join("\n");
}

function generatedEntry(
  command: CatalogCommand,
  detail: SchemaDetail,
  glossary: () => ReadonlyMap<string, string>,
  shared: SharedParamSchemas,
): ToolEntry {
  const policy = lookupCommandPolicy(command.path, { external: command.plugin?.external ?? false });
  const name = command.toolName as string;
  // Built when first called or listed: after a warm start the first call builds its own
  // validator only, the snapshot having listed the tools.
  let validator: ToolSchema["validator"] | null = null;
  let definition: Tool | null = null;
  return {
    kind: "generated",
    name,
    path: command.path,
    command,
    baseClass: policy.baseClass,
    policy,
    get validator() {
      validator ??= buildValidator(command, detail, shared);
      return validator;
    },
    get definition() {
      definition ??= generatedDefinition(command, name, policy, detail, glossary(), shared);
      return definition;
    },
  };
}

function generatedDefinition(
  command: CatalogCommand,
  name: string,
  policy: ResolvedCommandPolicy,
  detail: SchemaDetail,
  glossary: ReadonlyMap<string, string>,
  shared: SharedParamSchemas,
): Tool {
  const inputSchema = buildInputJsonSchema(command, detail, glossary, shared);
  const annotations: ToolAnnotations & { title: string } = {
    title: `conda ${command.path.join(" ")}`,
    ...policy.annotations,
  };
  const definition: Tool = {
    name,
    title: annotations.title,
    description: describeTool(command, policy.baseClass, detail),
    inputSchema,
    outputSchema: resultSchema(detail),
    annotations,
    _meta: {
      "conda-mcp/path": command.path,
      "conda-mcp/aliases": command.aliases,
      "conda-mcp/class": policy.baseClass,
    },
  };
  return definition;
}

/** The outputSchema of a tool that runs conda, at a detail. */
function resultSchema(detail: SchemaDetail): Tool["outputSchema"] {
  return (
    detail === "compact" ? COMPACT_EXECUTION_RESULT_JSON_SCHEMA : EXECUTION_RESULT_JSON_SCHEMA
  ) as Tool["outputSchema"];
}

const executeDefinition = (inputSchema: Tool["inputSchema"], detail: SchemaDetail): Tool => ({
  name: EXECUTE_TOOL_NAME,
  title: "conda (raw command line)",
  description:
    "Runs conda with a raw argument list (no shell), for commands and options the typed tools do not cover. " +
    "Needs --allow-exec, plus the startup option of the command it names.",
  inputSchema,
  outputSchema: resultSchema(detail),
  annotations: {
    title: "conda (raw command line)",
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
});

/** Every tool to list, in a stable order, after the startup narrowing options. */
export function buildToolRegistry(
  catalog: Catalog,
  options: RegistryOptions,
): {
  entries: ToolEntry[];
  unmatched: string[];
  /** Options the compact definitions leave to the server's instructions (made on first use). */
  glossary: () => ReadonlyMap<string, string>;
} {
  const tools = catalog.commands.filter((c) => c.status === "tool" && c.toolName !== null);
  let shortened: ReadonlyMap<string, string> | null = null;
  const glossary = () => {
    shortened ??= options.schemaDetail === "compact" ? sharedOptionGlossary(tools) : new Map();
    return shortened;
  };
  const shared: SharedParamSchemas = new Map();
  const candidates: ToolEntry[] = tools.map((command) =>
    generatedEntry(command, options.schemaDetail, glossary, shared),
  );
  if (options.cliCommandTool) {
    candidates.push({
      kind: "cli_command",
      definition: options.cliCommandTool,
      baseClass: "read",
      name: options.cliCommandTool.name,
      path: [],
    });
  }
  const executeInputSchema = options.executeInputSchema;
  if (executeInputSchema) {
    let definition: Tool | null = null;
    candidates.push({
      kind: "execute",
      get definition() {
        definition ??= executeDefinition(executeInputSchema(), options.schemaDetail);
        return definition;
      },
      baseClass: "exec",
      name: EXECUTE_TOOL_NAME,
      path: null,
    });
  }
  const { tools: entries, unmatched } = selectTools(candidates, options);
  return { entries, unmatched, glossary };
}

/**
 * The listed tools' definitions, as `tools/list` answers them; a generated tool's definition is
 * built on first read.
 */
export function toolDefinitions(entries: readonly ToolEntry[]): Tool[] {
  return entries.map((entry) => entry.definition);
}
