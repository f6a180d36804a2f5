import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { withDeadline } from "./start-server.ts";

/**
 * An SDK client connected over stdio to `<conda> mcp [args]`, as an MCP client configured with
 * `"command": "<conda>", "args": ["mcp", ...]` starts it.
 */
export async function startCondaMcp(
  condaExe: string,
  args: string[],
  env: Record<string, string>,
): Promise<Client> {
  const transport = new StdioClientTransport({
    command: condaExe,
    args: ["mcp", ...args],
    env,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: "conda-mcp-release-tests", version: "0.0.0" });
  try {
    await withDeadline(client.connect(transport), 60_000, "starting conda mcp");
  } catch (error) {
    await client.close().catch(() => {});
    throw new Error(`conda mcp did not start: ${error}\n${stderr}`);
  }
  return client;
}
