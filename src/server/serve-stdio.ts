import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { LineReader } from "./line-reader.ts";
import { StdioLineTransport, type StdioLineTransportOptions } from "./stdio-line-transport.ts";

/**
 * Serves MCP on stdin/stdout until the client closes stdin, then aborts running calls (their
 * process trees are killed) and resolves. `reader` is the stdin reader the start-up answerer
 * used, when it answered the first messages (see answerFromSnapshot).
 */
export async function serveStdio(
  server: Server,
  shutdown: AbortController,
  options: StdioLineTransportOptions & { reader?: LineReader | undefined } = {},
): Promise<void> {
  const transport = new StdioLineTransport(
    options.reader ?? new LineReader(process.stdin),
    process.stdout,
    options,
  );
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  await closed;
  shutdown.abort();
  await server.close().catch(() => {});
}
