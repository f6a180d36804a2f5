import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { LineReader } from "../stdio/line-reader.ts";
import {
  StdioLineTransport,
  type StdioLineTransportOptions,
} from "../stdio/stdio-line-transport.ts";
import type { LineOutput } from "../stdio/stdout-output.ts";

/**
 * Serves MCP on stdin/stdout until the client closes stdin, then aborts running calls (their
 * process trees are killed) and resolves. `reader` reads stdin; lines it read before the server
 * was ready (and not answered by the start-up answerer) are served first. `output` writes stdout.
 */
export async function serveStdio(
  server: Server,
  shutdown: AbortController,
  options: StdioLineTransportOptions & { reader: LineReader; output: LineOutput },
): Promise<void> {
  const transport = new StdioLineTransport(options.reader, options.output, options);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  await closed;
  shutdown.abort();
  await server.close().catch(() => {});
  // The SDK forgets a transport once it reports its close; answers still on their way out
  // must reach the pipe before the process exits.
  await transport.close();
}
