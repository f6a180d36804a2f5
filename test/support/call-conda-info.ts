import { expect } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** Calls `conda_info {"json": true}`, expects the call and conda to succeed, returns conda's JSON. */
export async function callCondaInfo(
  client: Client,
  timeoutMs = 120_000,
): Promise<Record<string, unknown>> {
  const info = (await client.callTool(
    { name: "conda_info", arguments: { json: true } },
    undefined,
    { timeout: timeoutMs },
  )) as CallToolResult;
  expect(info.isError).toBeFalsy();
  const out = info.structuredContent as { exit_code: number; parsed_json: unknown };
  expect(out.exit_code).toBe(0);
  return out.parsed_json as Record<string, unknown>;
}
