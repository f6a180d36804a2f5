import type { CallToolResult, ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import { type InputLine, parseInputLine } from "../stdio/line-reader.ts";
import { isJsonObject } from "../values.ts";
import {
  cancelledRequestId,
  type PlainToolsCall,
  plainToolsCall,
  type RequestId,
} from "../warm-start/handshake-shapes.ts";
import type { ToolEntry } from "./build-tool-registry.ts";
import { type CallContext, createCallTool } from "./call-tool.ts";
import type { ServerDeps } from "./server-deps.ts";

/** Calls started before the MCP SDK was loaded, each waiting for the handler of its request. */
export interface WaitingCalls {
  /**
   * The result of request `id`'s early run when it calls tool `name`, taken at most once; from
   * then on the run follows `context` (its cancellation and progress). Null when there is none.
   */
  claim(id: RequestId, name: string, context: CallContext): Promise<CallToolResult> | null;
}

type Call = ReturnType<typeof createCallTool>;

/**
 * Starts the `tools/call` requests among `lines` (read, not yet served) while the MCP SDK is
 * still loading, each exactly as the server runs a call (the same validation, policy and FIFO
 * queue): after a warm start conda is then already running when the SDK's handler claims the
 * run. Calls start in their order up to the first one that cannot start early (not plain, or
 * its id not unique among the waiting requests), so none overtakes a call the SDK queues later;
 * a plain call of no listed tool never enters the queue and one whose cancellation waits too
 * never runs, so both are passed over. The SDK gets every line as before. Shutting the server
 * down ends any run. Null when no call was started.
 */
export function startWaitingCalls(
  deps: ServerDeps,
  lines: readonly InputLine[],
): WaitingCalls | null {
  const messages = lines.flatMap((line) => {
    const parsed = parseInputLine(line);
    return parsed ? [parsed.message] : [];
  });
  const cancelled = new Set(messages.map(cancelledRequestId).filter((id) => id !== null));
  const uses = new Map<unknown, number>();
  for (const id of messages.map(requestIdOf)) uses.set(id, (uses.get(id) ?? 0) + 1);
  const byName = new Map(deps.entries.map((e) => [e.name, e]));
  const callTool = createCallTool(deps);
  const started = new Map<RequestId, EarlyRun>();
  for (const message of messages) {
    if (!isJsonObject(message) || message.method !== "tools/call") continue;
    const call = plainToolsCall(message);
    if (call === null || uses.get(call.id) !== 1) break;
    const entry = byName.get(call.name);
    if (!entry || cancelled.has(call.id)) continue;
    started.set(call.id, startEarly(callTool, entry, call));
  }
  if (started.size === 0) return null;
  return {
    claim(id, name, context) {
      const run = started.get(id);
      if (!run || run.name !== name) return null;
      started.delete(id);
      return run.adopt(context);
    },
  };
}

/** The id of a request (a message with a method and an id), else undefined. */
function requestIdOf(message: unknown): unknown {
  return isJsonObject(message) && "method" in message ? message.id : undefined;
}

interface EarlyRun {
  name: string;
  adopt(context: CallContext): Promise<CallToolResult>;
}

/** Runs one call with a context of its own until the request's real context adopts it. */
function startEarly(callTool: Call, entry: ToolEntry, call: PlainToolsCall): EarlyRun {
  const controller = new AbortController();
  let adopted: CallContext | null = null;
  // Progress sent before the handler claimed the run goes out once it has.
  const held: ServerNotification[] = [];
  const context: CallContext = {
    signal: controller.signal,
    _meta: call.progressToken === undefined ? {} : { progressToken: call.progressToken },
    sendNotification: async (notification) => {
      if (adopted) return adopted.sendNotification(notification);
      held.push(notification);
    },
  };
  const result = callTool(entry, call.arguments, context);
  // A fault is the claiming handler's to report; unclaimed, it must not end the process.
  result.catch(() => {});
  return {
    name: call.name,
    adopt(real) {
      adopted = real;
      for (const notification of held.splice(0))
        real.sendNotification(notification).catch(() => {});
      if (real.signal.aborted) controller.abort();
      else real.signal.addEventListener("abort", () => controller.abort(), { once: true });
      return result;
    },
  };
}
