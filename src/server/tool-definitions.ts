import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolEntry } from "./build-tool-registry.ts";

/**
 * The listed tools' definitions, as `tools/list` answers them; a generated tool's definition is
 * built on first read.
 */
export function toolDefinitions(entries: readonly ToolEntry[]): Tool[] {
  return entries.map((entry) => entry.definition);
}
