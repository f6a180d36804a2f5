import { resolve } from "node:path";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type {
  CallToolResult,
  ServerNotification,
  ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { CatalogCommand } from "../catalog/catalog-types.ts";
import type { Heartbeat } from "../execute/run-process.ts";
import type { CallFacts } from "../policy/call-facts.ts";
import {
  type CommandClass,
  checkExecutePolicy,
  checkPolicy,
  type PolicyDecision,
  type PolicyOptions,
} from "../policy/check-policy.ts";
import {
  classifyCall,
  classifyFacts,
  type FindCommand,
  needsGuard,
  type ResolvedCommandPolicy,
} from "../policy/classify-call.ts";
import { guardCall } from "../policy/guard-call.ts";
import { renderToolResult } from "../result/render-tool-result.ts";
import { buildArgv } from "../schema/build-argv.ts";
import { type ArgumentIssue, validateArgs } from "../schema/validate-args.ts";
import type { ToolEntry } from "./build-tool-registry.ts";
import { EXECUTE_TOOL_NAME } from "./execute-tool.ts";
import type { Admission, ServerDeps } from "./server-deps.ts";

/** What a call needs of its request: its cancellation, progress token and notifications. */
export type CallContext = Pick<
  RequestHandlerExtra<ServerRequest, ServerNotification>,
  "signal" | "_meta" | "sendNotification"
>;

/** A tool error with text only: refusals, invalid arguments, faults of ours. */
export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

function invalidArguments(tool: string, issues: ArgumentIssue[]): CallToolResult {
  const lines = issues.map((i) => `- ${i.path}: ${i.message}`);
  return errorResult([`Invalid arguments for ${tool}:`, ...lines].join("\n"));
}

type Refusal = Extract<PolicyDecision, { allowed: false }>;

/** Finds a cataloged command by the canonical path conda's parser chose. */
function createFindCommand(commands: CatalogCommand[]): FindCommand {
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
  if (facts.outcome === "unknown") return unanswered(facts.message);
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

/**
 * Tool arguments keyed by argparse dest: only what the call passes, so a flag set to false (which
 * passes nothing) is left out, as conda's namespace leaves an option that was not given.
 */
function valuesByDest(command: CatalogCommand, args: Record<string, unknown>) {
  const values: Record<string, unknown> = {};
  for (const param of command.params) {
    if (!(param.name in args)) continue;
    if (param.shape.kind === "flag" && args[param.name] === false) continue;
    values[param.dest] = args[param.name];
  }
  return values;
}

/** Runs argv through the queue once admitted, with progress when asked. */
async function runAdmitted(
  deps: ServerDeps,
  argv: string[],
  extra: CallContext,
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
  const running = deps.runConda(argv, { ...options, signal: extra.signal, onHeartbeat });
  // restart_required compares the fingerprint after the run: read while conda runs (a read's
  // spawn is all microtasks, so this comes after it), only the watch's few stats remain then.
  setImmediate(() => {
    try {
      deps.currentFingerprint();
    } catch {
      // The read after the run meets the same failure, in the call's own path.
    }
  });
  const outcome = await running;
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
  deps: ServerDeps,
  entry: Extract<ToolEntry, { kind: "generated" }>,
  input: unknown,
  extra: CallContext,
) {
  const { command, policy } = entry;
  const validated = validateArgs(command, entry, input);
  if (!validated.success) return invalidArguments(entry.name, validated.issues);
  const values = valuesByDest(command, validated.output);
  const cls = classifyCall(policy, values);
  const decision = checkPolicy(cls, deps.policy);
  if (!decision.allowed) return errorResult(decision.message);
  const argv = buildArgv(command, validated.output);
  const label = `conda ${command.path.join(" ")}`;
  // Only a call its command's guard must check needs conda's facts.
  const needsFacts = needsGuard(policy, cls, values);
  return runAdmitted(deps, argv, extra, {
    tool: entry.name,
    timeoutMs: deps.timeoutMs,
    admit: async (signal) => {
      if (!needsFacts) return { allowed: true, changes: changes(cls), label };
      const answer = await deps.findFacts(argv, deps.cwd, signal);
      if (!answer.ok) return unanswered(answer.why);
      const guard = guardFromFacts(policy, command.path, answer.facts, deps.policy);
      return guard.allowed ? { allowed: true, changes: changes(cls), label } : guard;
    },
  });
}

async function callExecute(
  deps: ServerDeps,
  findCommand: FindCommand,
  input: unknown,
  extra: CallContext,
) {
  const validated = deps.executeTool.validate(input);
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
  return runAdmitted(deps, argv, extra, {
    tool: EXECUTE_TOOL_NAME,
    cwd,
    stdin,
    timeoutMs,
    admit: async (signal) => {
      const answer = await deps.findFacts(argv, cwd, signal);
      if (!answer.ok) return unanswered(answer.why);
      const { facts } = answer;
      if (facts.outcome === "unknown") return unanswered(facts.message);
      const { cls, policy } = classifyFacts(facts, findCommand);
      const decision = checkExecutePolicy(cls, deps.policy);
      if (!decision.allowed) return decision;
      const path = facts.outcome === "parsed" ? facts.path : [];
      const label = path.length > 0 ? `conda ${path.join(" ")}` : "conda";
      if (policy !== null && facts.outcome === "parsed" && needsGuard(policy, cls, facts.values)) {
        const guard = guardFromFacts(policy, path, facts, deps.policy);
        if (!guard.allowed) return guard;
      }
      return { allowed: true, changes: changes(cls), label };
    },
  });
}

/**
 * Answers tools/call for a listed tool: validates the input, classifies and checks the call
 * (asking conda for its facts in the call's turn when the call can change something), runs it
 * and renders one result. conda_cli_command goes to its own handler.
 */
export function createCallTool(
  deps: ServerDeps,
): (entry: ToolEntry, input: unknown, extra: CallContext) => Promise<CallToolResult> {
  const findCommand = createFindCommand(deps.commands);
  return async (entry, input, extra) => {
    switch (entry.kind) {
      case "generated":
        return callGenerated(deps, entry, input, extra);
      case "execute":
        return callExecute(deps, findCommand, input, extra);
      case "cli_command":
        return deps.cliCommand
          ? deps.cliCommand(input)
          : errorResult("conda-completion is not available");
    }
  };
}
