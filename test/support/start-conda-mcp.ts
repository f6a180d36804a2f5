import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { connectStdio } from "./start-server.ts";

/**
 * An SDK client connected over stdio to `<conda> mcp [args]`, as an MCP client configured with
 * `"command": "<conda>", "args": ["mcp", ...]` starts it.
 */
export async function startCondaMcp(
  condaExe: string,
  args: string[],
  env: Record<string, string>,
): Promise<Client> {
  const started = await connectStdio(
    { command: condaExe, args: ["mcp", ...args], env },
    "conda mcp",
    60_000,
  );
  return started.client;
}
