import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

/** The program under test: `bun src/main.ts`, or a compiled binary named by CONDA_MCP_TEST_BINARY. */
export function serverCommand(): { command: string; args: string[] } {
  const binary = process.env.CONDA_MCP_TEST_BINARY;
  if (binary) return { command: binary, args: [] };
  return { command: process.execPath, args: [join(import.meta.dir, "..", "..", "src", "main.ts")] };
}

/** A connected SDK client talking to a freshly started server over stdio. */
export interface RunningServer {
  client: Client;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/** Starts the server as a child process and connects a real SDK client to it. */
export async function startServer(options: {
  /** The --conda option; null lets the server find conda from the environment. */
  conda: string | null;
  args?: string[];
  env: Record<string, string>;
  /** Use the catalog cache and startup snapshot (in the env's cache folder); off by default. */
  cache?: boolean;
  /** The server's working directory; the test process's by default. */
  cwd?: string;
}): Promise<RunningServer> {
  const { command, args } = serverCommand();
  return connectStdio(
    {
      command,
      args: [
        ...args,
        ...(options.conda === null ? [] : ["--conda", options.conda]),
        ...(options.cache ? [] : ["--no-cache"]),
        ...(options.args ?? []),
      ],
      env: options.env,
      cwd: options.cwd,
    },
    "server",
  );
}

/**
 * Starts `command` as an MCP server over stdio and connects an SDK client, collecting its
 * stderr; a start that fails or hangs past `timeoutMs` throws with that stderr.
 */
export async function connectStdio(
  program: { command: string; args: string[]; env: Record<string, string>; cwd?: string },
  what: string,
  timeoutMs = 120_000,
): Promise<RunningServer> {
  const transport = new StdioClientTransport({
    command: program.command,
    args: program.args,
    env: program.env,
    ...(program.cwd ? { cwd: program.cwd } : {}),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: "conda-mcp-tests", version: "0.0.0" });
  try {
    await withDeadline(client.connect(transport), timeoutMs, `starting the ${what}`);
  } catch (error) {
    await client.close().catch(() => {});
    throw new Error(`${what} did not start: ${error}\n${stderr}`);
  }
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** Resolves with the promise's value, or fails loudly when the deadline passes first. */
export async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
