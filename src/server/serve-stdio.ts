import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

/**
 * Serves MCP on stdin/stdout until the client closes stdin, then aborts running calls (their
 * process trees are killed) and resolves. The SDK's stdio transport ignores stdin EOF itself.
 */
export async function serveStdio(server: Server, shutdown: AbortController): Promise<void> {
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  await closed;
  shutdown.abort();
  await server.close().catch(() => {});
}
