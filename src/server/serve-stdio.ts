import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioLineTransport } from "./stdio-line-transport.ts";

/**
 * Serves MCP on stdin/stdout until the client closes stdin, then aborts running calls (their
 * process trees are killed) and resolves. The transport does not watch stdin EOF itself.
 */
export async function serveStdio(server: Server, shutdown: AbortController): Promise<void> {
  const transport = new StdioLineTransport(process.stdin, process.stdout);
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
