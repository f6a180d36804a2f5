import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ExecutionResult } from "../result/execution-result.ts";
import { renderToolResult } from "../result/render-tool-result.ts";

// A finished read as conda_info --json ends: JSON on stdout, parsed. Never sent.
const SAMPLE: ExecutionResult = {
  exit_code: 0,
  stop_reason: "exited",
  stop_detail: null,
  stdout: '{"conda_version": "0", "channels": ["local"], "envs": []}\n',
  stderr: "",
  duration_ms: 1,
  parsed_json: { conda_version: "0", channels: ["local"], envs: [] },
  timed_out: false,
  cancelled: false,
  stdout_truncated: false,
  stderr_truncated: false,
  restart_required: false,
  killed: false,
};

/**
 * Takes a sample call's answer the way a real one goes: rendered, checked against the SDK's
 * result schema (as its tools/call handler does) and serialized as a JSON-RPC response; returns
 * whether the SDK's check accepted it. The first time through, that code runs several times
 * slower than after (bytecode linked, zod's checks set up): done while a call's conda runs, it
 * spares that call's answer the wait. Nothing is sent or kept.
 */
export function rehearseAnswer(): boolean {
  try {
    const result = renderToolResult(SAMPLE, { summaryLabel: "conda info" });
    const checked = CallToolResultSchema.safeParse(result);
    JSON.stringify({ jsonrpc: "2.0", id: 0, result: checked.data });
    return checked.success;
  } catch {
    // It runs from a timer, where a throw would end the server: a rehearsal only saves time.
    return false;
  }
}
