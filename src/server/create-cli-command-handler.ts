import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import {
  CLI_COMMAND_INPUT_SCHEMA,
  CLI_COMMAND_OUTPUT_SCHEMA,
  CLI_COMMAND_TOOL_DESCRIPTION,
  CLI_COMMAND_TOOL_NAME,
  cliCommandTool,
} from "../completion/cli-command-tool.ts";
import type { ManifestReader } from "../completion/create-manifest-reader.ts";
import { pluginHash } from "../completion/plugin-hash.ts";
import type { CliCommandHandler } from "./server-deps.ts";

/** conda_cli_command as tools/list shows it: read-only, needs no policy option. */
export const CLI_COMMAND_DEFINITION: Tool = {
  name: CLI_COMMAND_TOOL_NAME,
  title: "conda command metadata (conda-completion)",
  description: CLI_COMMAND_TOOL_DESCRIPTION,
  inputSchema: CLI_COMMAND_INPUT_SCHEMA,
  outputSchema: CLI_COMMAND_OUTPUT_SCHEMA,
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
};

/**
 * Answers conda_cli_command calls from the manifest at `manifestPath`, read on each call;
 * `currentPluginNames` gives the conda entry-point names registered now, for `stale`. The
 * manifest's reader (msgpack, node:fs/promises and the manifest's schema) loads when a manifest
 * is first read: a server that is never asked for command metadata, and every first call, go
 * without it.
 */
export function createCliCommandHandler(context: {
  manifestPath: string;
  installedVersion: string | null;
  currentPluginNames: () => string[];
}): CliCommandHandler {
  let reader: ManifestReader | null = null;
  const readManifest: ManifestReader = async (path) => {
    reader ??= (await import("../completion/create-manifest-reader.ts")).createManifestReader();
    return reader(path);
  };
  return async (input) => {
    const { manifestPath, installedVersion } = context;
    const currentPluginHash = pluginHash(context.currentPluginNames());
    const outcome = await cliCommandTool(
      { manifestPath, installedVersion, currentPluginHash, readManifest },
      input,
    );
    // Invalid input is a tool error the model can correct; the message never repeats the input.
    if ("error" in outcome)
      return { isError: true, content: [{ type: "text", text: outcome.message }] };
    const result: CallToolResult = {
      structuredContent: outcome as unknown as Record<string, unknown>,
      content: [{ type: "text", text: JSON.stringify(outcome) }],
    };
    return result;
  };
}
