import { resolve } from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { CatalogCommand } from "../catalog/catalog-types.ts";
import type { Heartbeat } from "../execute/run-process.ts";
import { checkExecutePolicy } from "../policy/check-execute-policy.ts";
import { checkPolicy, type PolicyOptions } from "../policy/check-policy.ts";
import { type CatalogLookup, classifyArgv } from "../policy/classify-argv.ts";
import { classifyCall } from "../policy/classify-call.ts";
import { type GuardFacts, guardCall } from "../policy/guard-call.ts";
import type { ExecutionResult } from "../result/execution-result.ts";
import { renderToolResult } from "../result/render-tool-result.ts";
import { buildArgv } from "../schema/build-argv.ts";
import type { ArgumentIssue } from "../schema/validate-args.ts";
import { validateArgs } from "../schema/validate-args.ts";
import { CAPABILITIES_URI } from "./build-capabilities.ts";
import type { ToolEntry } from "./build-tool-registry.ts";
import { EXECUTE_TOOL_NAME, validateExecuteInput } from "./execute-tool.ts";

/** Runs conda with argv after the executable; queued, capped, killable. */
export type RunConda = (
  argv: string[],
  options: {
    /** The tool that was called, for hosts that observe executions. */
    tool: string;
    cwd?: string;
    stdin?: string;
    timeoutMs: number;
    signal: AbortSignal;
    onHeartbeat?: (heartbeat: Heartbeat) => void;
  },
) => Promise<ExecutionResult>;

/** Answers a conda_cli_command call (input already received as JSON). */
export type CliCommandHandler = (input: unknown) => Promise<CallToolResult>;

/** Everything the MCP server serves, built once at startup. */
export interface ServerDeps {
  version: string;
  entries: ToolEntry[];
  /** Options described once in the instructions instead of in each tool (see sharedOptionGlossary). */
  glossary: ReadonlyMap<string, string>;
  /** Every cataloged command, for resolving raw command lines. */
  commands: CatalogCommand[];
  /** The conda://capabilities document (built once, on first use). */
  capabilitiesJson: () => string;
  policy: PolicyOptions;
  guardFacts: GuardFacts;
  timeoutMs: number;
  maxStdinBytes: number;
  maxOutputBytes: number;
  runConda: RunConda;
  /** Recomputes the discovery fingerprint (cheap, no Python). */
  currentFingerprint: () => string;
  startupFingerprint: string;
  cliCommand: CliCommandHandler | null;
  /** Where diagnostics go (stderr); never stdout. */
  log: (line: string) => void;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What a client shows its model once: how the tools work and the options they share. */
function serverInstructions(glossary: ReadonlyMap<string, string>): string {
  const lines = [
    "Each conda_* tool runs one conda command with typed arguments; the server checks every rule and names the JSON path of a wrong value.",
    "Read conda://capabilities for the served conda, its plugins, every command's complete arguments and help, and any commands only conda_execute can reach.",
  ];
  if (glossary.size > 0) {
    lines.push("Options many tools share, described here once:");
    for (const [name, sentence] of glossary) lines.push(`- ${name}: ${sentence}`);
  }
  return lines.join("\n");
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

function invalidArguments(tool: string, issues: ArgumentIssue[]): CallToolResult {
  const lines = issues.map((i) => `- ${i.path}: ${i.message}`);
  return errorResult([`Invalid arguments for ${tool}:`, ...lines].join("\n"));
}

/** Maps the leading words of a raw command line to a cataloged command, aliases included. */
export function createCatalogLookup(commands: CatalogCommand[]): CatalogLookup {
  const byPath = new Map<string, CatalogCommand>();
  for (const command of commands) {
    byPath.set(command.path.join(" "), command);
    for (const alias of command.aliases) byPath.set(alias.join(" "), command);
  }
  return (tokens) => {
    for (let n = tokens.length; n > 0; n--) {
      const command = byPath.get(tokens.slice(0, n).join(" "));
      if (command) {
        return {
          path: command.path,
          consumed: n,
          params: command.params,
          external: command.plugin?.external ?? false,
        };
      }
    }
    return null;
  };
}

/** The low-level MCP server with conda's tools and the capabilities resource. */
export function createServer(deps: ServerDeps): Server {
  const server = new Server(
    { name: "conda-mcp", version: deps.version },
    {
      capabilities: {
        tools: { listChanged: false },
        resources: { subscribe: false, listChanged: false },
      },
      instructions: serverInstructions(deps.glossary),
    },
  );
  const byName = new Map(deps.entries.map((e) => [e.definition.name, e]));
  const lookup = createCatalogLookup(deps.commands);

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: deps.entries.map((e) => e.definition),
  }));

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [
      {
        uri: CAPABILITIES_URI,
        name: "capabilities",
        title: "conda-mcp capabilities",
        description: "The served conda: version, catalog, plugins, diagnostics, fingerprint.",
        mimeType: "application/json",
      },
    ],
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

  /** Runs argv through the queue, with progress when asked, and checks for restart need. */
  async function run(
    label: string,
    argv: string[],
    extra: Extra,
    options: { tool: string; cwd?: string; stdin?: string; timeoutMs: number },
  ): Promise<CallToolResult> {
    const progressToken = extra._meta?.progressToken;
    const onHeartbeat =
      progressToken === undefined
        ? undefined
        : (beat: Heartbeat) => {
            const seconds = Math.round(beat.elapsedMs / 1000);
            const last = beat.lastStderrLine ? `; ${beat.lastStderrLine.slice(0, 200)}` : "";
            void extra
              .sendNotification({
                method: "notifications/progress",
                params: {
                  progressToken,
                  progress: beat.elapsedMs,
                  message: `${label}: running for ${seconds} s${last}`,
                },
              })
              .catch(() => {});
          };
    const result = await deps.runConda(argv, { ...options, signal: extra.signal, onHeartbeat });
    if (!result.cancelled) {
      result.restart_required = deps.currentFingerprint() !== deps.startupFingerprint;
    }
    return renderToolResult(result, { summaryLabel: label, maxOutputBytes: deps.maxOutputBytes });
  }

  async function callGenerated(
    entry: Extract<ToolEntry, { kind: "generated" }>,
    input: unknown,
    extra: Extra,
  ) {
    const { command } = entry;
    const validated = validateArgs(command, entry.schema, input);
    if (!validated.success) return invalidArguments(entry.definition.name, validated.issues);
    const args = validated.output;
    const cls = classifyCall(command.path, args, { external: command.plugin?.external ?? false });
    const decision = checkPolicy(cls, deps.policy);
    if (!decision.allowed) return errorResult(decision.message);
    const guard = guardCall(command.path, args, deps.guardFacts);
    if (!guard.allowed) return errorResult(guard.message);
    return run(`conda ${command.path.join(" ")}`, buildArgv(command, args), extra, {
      tool: entry.definition.name,
      timeoutMs: deps.timeoutMs,
    });
  }

  async function callExecute(input: unknown, extra: Extra) {
    const limits = { maxStdinBytes: deps.maxStdinBytes, timeoutSeconds: deps.timeoutMs / 1000 };
    const validated = validateExecuteInput(input, limits);
    if (!validated.success) return invalidArguments("conda_execute", validated.issues);
    const { argv, stdin, timeout_seconds } = validated.output;
    // conda resolves relative paths against the call's own working directory, which is taken
    // from the server's when relative: the guards and the spawn both use this one.
    const cwd =
      validated.output.cwd === undefined
        ? undefined
        : resolve(deps.guardFacts.cwd, validated.output.cwd);
    const classification = classifyArgv(argv, lookup);
    const decision = checkExecutePolicy(classification.cls, deps.policy);
    if (!decision.allowed) return errorResult(decision.message);
    if (classification.path !== null) {
      const facts = cwd === undefined ? deps.guardFacts : { ...deps.guardFacts, cwd };
      const guard = guardCall(classification.path, classification.args, facts);
      if (!guard.allowed) return errorResult(guard.message);
    }
    const timeoutMs =
      timeout_seconds === undefined ? deps.timeoutMs : Math.round(timeout_seconds * 1000);
    const label = classification.path ? `conda ${classification.path.join(" ")}` : "conda";
    return run(label, argv, extra, { tool: EXECUTE_TOOL_NAME, cwd, stdin, timeoutMs });
  }

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const entry = byName.get(request.params.name);
    // Only listed tools are callable; the error names nothing of the catalog.
    if (!entry) throw new McpError(ErrorCode.InvalidParams, "Unknown tool");
    const input = request.params.arguments;
    try {
      switch (entry.kind) {
        case "generated":
          return await callGenerated(entry, input, extra);
        case "execute":
          return await callExecute(input, extra);
        case "cli_command":
          return deps.cliCommand
            ? await deps.cliCommand(input)
            : errorResult("conda-completion is not available");
      }
    } catch (error) {
      // A fault of ours: log it where the user can see it, tell the client nothing internal.
      deps.log(
        `internal error in ${entry.definition.name}: ${error instanceof Error ? error.stack : String(error)}`,
      );
      return errorResult("conda-mcp failed to run this call; see the server's log.");
    }
  });

  return server;
}
