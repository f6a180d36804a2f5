import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { serverCommand, withDeadline } from "./start-server.ts";

/** A server process serving --http on an ephemeral loopback port. */
export interface HttpServer {
  url: URL;
  /** The token clients send: from the token file or the one printed at startup. */
  token: string;
  stderr(): string;
  /** Sends the signal and resolves with the exit code. */
  kill(signal: NodeJS.Signals): Promise<number>;
}

/**
 * Starts the server with `--http 127.0.0.1:0` against a conda and waits until it listens; the
 * token is the one printed at startup, or `fallbackToken` when a token file was given.
 */
export async function startHttpServer(options: {
  conda: string;
  env: Record<string, string>;
  args: string[];
  fallbackToken?: string;
}): Promise<HttpServer> {
  const { command, args: prefix } = serverCommand();
  const proc = Bun.spawn(
    [
      command,
      ...prefix,
      "--conda",
      options.conda,
      "--no-cache",
      "--http",
      "127.0.0.1:0",
      ...options.args,
    ],
    { env: options.env, stdin: "ignore", stdout: "ignore", stderr: "pipe" },
  );
  let stderr = "";
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr) stderr += decoder.decode(chunk, { stream: true });
  })();
  const listening = async () => {
    for (;;) {
      const url = /serving MCP over Streamable HTTP at (\S+)/.exec(stderr)?.[1];
      if (url) return url;
      if (proc.exitCode !== null) throw new Error(`server exited ${proc.exitCode}:\n${stderr}`);
      await Bun.sleep(20);
    }
  };
  const url = await withDeadline(listening(), 30_000, "HTTP server start");
  const printed = /Bearer <token>"\): (\S+)/.exec(stderr)?.[1];
  return {
    url: new URL(url),
    token: printed ?? options.fallbackToken ?? "",
    stderr: () => stderr,
    kill: async (signal) => {
      if (proc.exitCode === null) proc.kill(signal);
      return withDeadline(proc.exited, 30_000, `exit after ${signal}`);
    },
  };
}

/** An SDK client connected over Streamable HTTP with a bearer token. */
export async function connectHttp(target: HttpServer, token = target.token): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(target.url, {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "conda-mcp-http-tests", version: "0.0.0" });
  await withDeadline(client.connect(transport), 30_000, "connect over HTTP");
  return client;
}
