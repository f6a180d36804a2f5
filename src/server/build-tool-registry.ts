import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Catalog, CatalogCommand } from "../catalog/catalog-types.ts";
import type { ToolAnnotations } from "../policy/builtin-command-policies.ts";
import type { CommandClass } from "../policy/command-class.ts";
import { lookupCommandPolicy } from "../policy/lookup-command-policy.ts";
import { selectTools } from "../policy/select-tools.ts";
import { EXECUTION_RESULT_JSON_SCHEMA } from "../result/render-tool-result.ts";
import { buildInputSchema, type ToolSchema } from "../schema/build-input-schema.ts";
import { EXECUTE_INPUT_JSON_SCHEMA, EXECUTE_TOOL_NAME } from "./execute-tool.ts";

/** A listed tool and what the server needs to call it. */
export type ToolEntry =
  | {
      kind: "generated";
      definition: Tool;
      command: CatalogCommand;
      schema: ToolSchema;
      baseClass: CommandClass;
    }
  | { kind: "execute"; definition: Tool; baseClass: CommandClass }
  | { kind: "cli_command"; definition: Tool; baseClass: CommandClass };

/** What decides the listed surface. */
export interface RegistryOptions {
  allowExec: boolean;
  readOnlyTools: boolean;
  tools: readonly string[] | null;
  /** The completion tool's definition when conda-completion is installed, else null. */
  cliCommandTool: Tool | null;
}

function describeTool(command: CatalogCommand, baseClass: CommandClass): string {
  const lines = [command.summary || `Runs conda ${command.path.join(" ")}.`];
  const aliases = command.aliases.map((a) => `conda ${a.join(" ")}`);
  lines.push(
    `Runs \`conda ${command.path.join(" ")}\`${aliases.length ? ` (also: ${aliases.join(", ")})` : ""}.`,
  );
  if (command.plugin?.external) lines.push(`Provided by the plugin ${command.plugin.name}.`);
  if (baseClass !== "read") lines.push(`Policy class: ${baseClass}.`);
  for (const group of command.exclusiveGroups.filter((g) => g.required)) {
    lines.push(`Exactly one of ${group.members.join(", ")} is required.`);
  }
  return lines.join("\n");
}

function generatedEntry(command: CatalogCommand): ToolEntry {
  const policy = lookupCommandPolicy(command.path, { external: command.plugin?.external ?? false });
  const schema = buildInputSchema(command);
  const annotations: ToolAnnotations & { title: string } = {
    title: `conda ${command.path.join(" ")}`,
    ...policy.annotations,
  };
  return {
    kind: "generated",
    command,
    schema,
    baseClass: policy.baseClass,
    definition: {
      name: command.toolName as string,
      title: annotations.title,
      description: describeTool(command, policy.baseClass),
      inputSchema: schema.jsonSchema,
      outputSchema: EXECUTION_RESULT_JSON_SCHEMA as Tool["outputSchema"],
      annotations,
      _meta: {
        "conda-mcp/path": command.path,
        "conda-mcp/aliases": command.aliases,
        "conda-mcp/class": policy.baseClass,
      },
    },
  };
}

const EXECUTE_DEFINITION: Tool = {
  name: EXECUTE_TOOL_NAME,
  title: "conda (raw command line)",
  description:
    "Runs conda with a raw argument list (no shell), for commands and options the typed tools do not cover. " +
    "Needs --allow-exec, plus the startup option of the command it names.",
  inputSchema: EXECUTE_INPUT_JSON_SCHEMA,
  outputSchema: EXECUTION_RESULT_JSON_SCHEMA as Tool["outputSchema"],
  annotations: {
    title: "conda (raw command line)",
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
};

/** Every tool to list, in a stable order, after the startup narrowing options. */
export function buildToolRegistry(
  catalog: Catalog,
  options: RegistryOptions,
): {
  entries: ToolEntry[];
  unmatched: string[];
} {
  const candidates: (ToolEntry & { name: string; path: readonly string[] | null })[] = [];
  for (const command of catalog.commands) {
    if (command.status !== "tool" || command.toolName === null) continue;
    const entry = generatedEntry(command);
    candidates.push({ ...entry, name: entry.definition.name, path: command.path });
  }
  if (options.cliCommandTool) {
    candidates.push({
      kind: "cli_command",
      definition: options.cliCommandTool,
      baseClass: "read",
      name: options.cliCommandTool.name,
      path: [],
    });
  }
  candidates.push({
    kind: "execute",
    definition: EXECUTE_DEFINITION,
    baseClass: "exec",
    name: EXECUTE_TOOL_NAME,
    path: null,
  });
  const selection = selectTools(candidates, options);
  const entries = selection.tools.map(
    ({ name: _name, path: _path, ...entry }) => entry as ToolEntry,
  );
  return { entries, unmatched: selection.unmatched };
}
