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
import type { CallFacts } from "../policy/call-facts.ts";
import { checkExecutePolicy } from "../policy/check-execute-policy.ts";
import { checkPolicy, type PolicyDecision, type PolicyOptions } from "../policy/check-policy.ts";
import { classifyCall } from "../policy/classify-call.ts";
import { classifyFacts, type FindCommand } from "../policy/classify-facts.ts";
import type { CommandClass } from "../policy/command-class.ts";
import type { FactsAnswer } from "../policy/find-call-facts.ts";
import { guardCall } from "../policy/guard-call.ts";
import type { ResolvedCommandPolicy } from "../policy/lookup-command-policy.ts";
import type { ExecutionResult } from "../result/execution-result.ts";
import { renderToolResult } from "../result/render-tool-result.ts";
import { buildArgv } from "../schema/build-argv.ts";
import type { ArgumentIssue } from "../schema/validate-args.ts";
import { validateArgs } from "../schema/validate-args.ts";
import { CAPABILITIES_URI } from "./build-capabilities.ts";
import type { ToolEntry } from "./build-tool-registry.ts";
import { EXECUTE_TOOL_NAME, validateExecuteInput } from "./execute-tool.ts";

/** Whether a call may run, decided in its turn of the queue, when conda's facts are current. */
export type Admission =
  | { readonly allowed: false; readonly message: string }
  | {
      readonly allowed: true;
      /** The call may change an environment: a cancel waits for conda's rollback. */
      readonly changes: boolean;
      /** How summaries and progress name the call (`conda remove`). */
      readonly label: string;
    };

/** Runs conda with argv after the executable once admitted; queued, capped, killable. */
export type RunConda = (
  argv: string[],
  options: {
    /** The tool that was called, for hosts that observe executions. */
    tool: string;
    cwd?: string;
    stdin?: string;
    timeoutMs: number;
    signal: AbortSignal;
    onHeartbeat?: (heartbeat: Heartbeat, label: string) => void;
    admit: (signal: AbortSignal) => Promise<Admission>;
  },
) => Promise<{ ran: ExecutionResult; label: string } | { refused: string }>;

/** Asks the target's conda what it would do with argv, run in cwd (the call's directory). */
export type FindFacts = (
  argv: readonly string[],
  cwd: string,
  signal: AbortSignal,
) => Promise<FactsAnswer>;

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
  findFacts: FindFacts;
  /** The server's working directory: relative paths of calls are resolved against it. */
  cwd: string;
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

type Refusal = Extract<PolicyDecision, { allowed: false }>;

/** Finds a cataloged command by the canonical path conda's parser chose. */
export function createFindCommand(commands: CatalogCommand[]): FindCommand {
  const byPath = new Map(commands.map((c) => [c.path.join(" "), c]));
  return (path) => {
    const command = byPath.get(path.join(" "));
    return command ? { external: command.plugin?.external ?? false } : null;
  };
}

/** Refuses a call conda could not be asked about: what it would touch is unknown. */
function unanswered(why: string): Refusal {
  return {
    allowed: false,
    message: `Refused: conda-mcp could not ask conda what this call would do (${why}).`,
  };
}

/** The guard of a changing call, from conda's facts; they must name the command the tool runs. */
function guardFromFacts(
  policy: ResolvedCommandPolicy,
  path: readonly string[],
  facts: CallFacts,
  options: PolicyOptions,
): PolicyDecision {
  // conda stops before running anything: it reports its own error (or only prints help).
  if (facts.outcome !== "parsed") return { allowed: true };
  if (facts.path.join(" ") !== path.join(" ")) {
    return unanswered("conda parsed this command line as another command");
  }
  return policy.guard ? guardCall(policy.guard, facts, options) : { allowed: true };
}

// conda rolls a transaction back when signalled; a program run by `conda run` has none.
function changes(cls: CommandClass): boolean {
  return cls === "write" || cls === "destructive";
}

/** Tool arguments keyed by argparse dest, as conda's namespace holds them. */
function valuesByDest(command: CatalogCommand, args: Record<string, unknown>) {
  const values: Record<string, unknown> = {};
  for (const param of command.params) {
    if (param.name in args) values[param.dest] = args[param.name];
  }
  return values;
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
  const findCommand = createFindCommand(deps.commands);

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

  /** Runs argv through the queue once admitted, with progress when asked. */
  async function run(
    argv: string[],
    extra: Extra,
    options: {
      tool: string;
      cwd?: string;
      stdin?: string;
      timeoutMs: number;
      admit: (signal: AbortSignal) => Promise<Admission>;
    },
  ): Promise<CallToolResult> {
    const progressToken = extra._meta?.progressToken;
    const onHeartbeat =
      progressToken === undefined
        ? undefined
        : (beat: Heartbeat, label: string) => {
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
    const outcome = await deps.runConda(argv, { ...options, signal: extra.signal, onHeartbeat });
    if ("refused" in outcome) return errorResult(outcome.refused);
    const result = outcome.ran;
    if (!result.cancelled) {
      result.restart_required = deps.currentFingerprint() !== deps.startupFingerprint;
    }
    return renderToolResult(result, {
      summaryLabel: outcome.label,
      maxOutputBytes: deps.maxOutputBytes,
    });
  }

  async function callGenerated(
    entry: Extract<ToolEntry, { kind: "generated" }>,
    input: unknown,
    extra: Extra,
  ) {
    const { command, policy } = entry;
    const validated = validateArgs(command, entry.schema, input);
    if (!validated.success) return invalidArguments(entry.definition.name, validated.issues);
    const cls = classifyCall(policy, valuesByDest(command, validated.output));
    const decision = checkPolicy(cls, deps.policy);
    if (!decision.allowed) return errorResult(decision.message);
    const argv = buildArgv(command, validated.output);
    const label = `conda ${command.path.join(" ")}`;
    // Only a call that can change something, of a command with a guard, needs conda's facts.
    const needsFacts = policy.guard !== undefined && (cls === "write" || cls === "destructive");
    return run(argv, extra, {
      tool: entry.definition.name,
      timeoutMs: deps.timeoutMs,
      admit: async (signal) => {
        if (!needsFacts) return { allowed: true, changes: changes(cls), label };
        const answer = await deps.findFacts(argv, deps.cwd, signal);
        if (!answer.ok) return unanswered(answer.why);
        const guard = guardFromFacts(policy, command.path, answer.facts, deps.policy);
        return guard.allowed ? { allowed: true, changes: true, label } : guard;
      },
    });
  }

  async function callExecute(input: unknown, extra: Extra) {
    const limits = { maxStdinBytes: deps.maxStdinBytes, timeoutSeconds: deps.timeoutMs / 1000 };
    const validated = validateExecuteInput(input, limits);
    if (!validated.success) return invalidArguments("conda_execute", validated.issues);
    const { argv, stdin, timeout_seconds } = validated.output;
    // Refused before its turn in the queue: no facts can lift the need for --allow-exec.
    const execDecision = checkExecutePolicy("exec", deps.policy);
    if (!execDecision.allowed) return errorResult(execDecision.message);
    // conda resolves relative paths against the call's own working directory, which is taken
    // from the server's when relative: the facts and the spawn both use this one.
    const cwd = resolve(deps.cwd, validated.output.cwd ?? ".");
    const timeoutMs =
      timeout_seconds === undefined ? deps.timeoutMs : Math.round(timeout_seconds * 1000);
    return run(argv, extra, {
      tool: EXECUTE_TOOL_NAME,
      cwd,
      stdin,
      timeoutMs,
      admit: async (signal) => {
        const answer = await deps.findFacts(argv, cwd, signal);
        if (!answer.ok) return unanswered(answer.why);
        const { facts } = answer;
        const { cls, policy } = classifyFacts(facts, findCommand);
        const decision = checkExecutePolicy(cls, deps.policy);
        if (!decision.allowed) return decision;
        const path = facts.outcome === "parsed" ? facts.path : [];
        const label = path.length > 0 ? `conda ${path.join(" ")}` : "conda";
        if (policy !== null && (cls === "write" || cls === "destructive")) {
          const guard = guardFromFacts(policy, path, facts, deps.policy);
          if (!guard.allowed) return guard;
        }
        return { allowed: true, changes: changes(cls), label };
      },
    });
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
