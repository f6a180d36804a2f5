import { availableParallelism } from "node:os";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { CAPABILITIES_URI } from "./build-capabilities.ts";
import { toolDefinitions } from "./build-tool-registry.ts";
import { createCallTool, errorResult } from "./call-tool.ts";
import { rehearseAnswer } from "./rehearse-answer.ts";
import type { ServerDeps } from "./server-deps.ts";
import { serverIdentity } from "./server-identity.ts";
import type { WaitingCalls } from "./start-waiting-calls.ts";

const CAPABILITIES_RESOURCE = {
  uri: CAPABILITIES_URI,
  name: "capabilities",
  title: "conda-mcp capabilities",
  description: "The served conda: version, catalog, plugins, diagnostics, fingerprint.",
  mimeType: "application/json",
};

/**
 * The low-level MCP server with conda's tools and the capabilities resource; a call in
 * `waiting` (started while the SDK loaded) is answered by that run instead of a new one.
 */
export function createServer(deps: ServerDeps, waiting: WaitingCalls | null = null): Server {
  const { serverInfo, capabilities, instructions } = serverIdentity(deps);
  const server = new Server(serverInfo, {
    capabilities,
    instructions,
    jsonSchemaValidator: lazyJsonSchemaValidator(),
  });
  const byName = new Map(deps.entries.map((e) => [e.name, e]));
  const callTool = createCallTool(deps);
  // The first call's answer is rehearsed while that call runs (see rehearseAnswer).
  let answerRehearsed = false;

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: toolDefinitions(deps.entries),
  }));

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [CAPABILITIES_RESOURCE],
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    if (request.params.uri !== CAPABILITIES_URI) {
      throw new McpError(ErrorCode.InvalidParams, "Unknown resource");
    }
    return {
      contents: [
        { uri: CAPABILITIES_URI, mimeType: "application/json", text: deps.capabilitiesJson() },
      ],
    };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const entry = byName.get(request.params.name);
    // Only listed tools are callable; the error names nothing of the catalog.
    if (!entry) throw new McpError(ErrorCode.InvalidParams, "Unknown tool");
    const input = request.params.arguments;
    try {
      const early = waiting?.claim(extra.requestId, entry.name, extra);
      const answer = early ?? callTool(entry, input, extra);
      // A call's way to conda's spawn is all microtasks: the rehearsal comes while conda runs.
      // conda_cli_command runs nothing, and on one core the rehearsal would slow conda down.
      if (!answerRehearsed && entry.kind !== "cli_command" && availableParallelism() > 1) {
        answerRehearsed = true;
        setImmediate(rehearseAnswer);
      }
      return await answer;
    } catch (error) {
      // A fault of ours: log it where the user can see it, tell the client nothing internal.
      deps.log(
        `internal error in ${entry.name}: ${error instanceof Error ? error.stack : String(error)}`,
      );
      return errorResult("conda-mcp failed to run this call; see the server's log.");
    }
  });

  return server;
}

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
