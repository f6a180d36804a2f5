import { serverCommand, withDeadline } from "./start-server.ts";

/** One raw `initialize` request line, as a client would write it to the server's stdin. */
export function initializeLine(id: string | number, protocolVersion = "2025-11-25"): string {
  const params = {
    protocolVersion,
    capabilities: {},
    clientInfo: { name: "raw", version: "0" },
  };
  return `${JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params })}\n`;
}

/** `initialize`, then each message on a line of its own: a client that pipelines them. */
export function afterInitialize(messages: readonly object[]): string {
  return `${initializeLine(0)}${messages.map((m) => `${JSON.stringify(m)}\n`).join("")}`;
}

/** A `tools/call` request; `params` adds to the call's own (`_meta`, `task`, ...). */
export function toolsCall(id: unknown, name: string, args?: unknown, params: object = {}) {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, ...params } };
}

/** The server under test behind raw pipes: what we write is exactly what it reads. */
export interface RawServer {
  /** Writes text (or bytes) as they are; add the newline yourself. */
  write(data: string | Uint8Array): Promise<void>;
  /** Every stdout line so far, as written (without the newline). */
  lines(): string[];
  /** Waits for a stdout line whose JSON satisfies the predicate; fails loudly at the deadline. */
  waitFor(
    what: string,
    predicate: (message: Record<string, unknown>) => boolean,
    ms?: number,
  ): Promise<Record<string, unknown>>;
  stderr(): string;
  /** Whether the server process has exited. */
  exited(): boolean;
  /** Sends a signal to the server process (only to it, by its pid). */
  kill(signal: NodeJS.Signals): void;
  /** Closes stdin and waits for the exit (killing the process after a deadline); returns the exit code. */
  close(): Promise<number | null>;
}

function parseLine(line: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(line);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** Starts `conda-mcp --conda <conda> [--no-cache] ...` with piped stdin/stdout/stderr. */
export function spawnRawServer(options: {
  conda: string;
  args?: string[];
  env: Record<string, string>;
  /** Use the catalog cache (in the env's HOME); default false (`--no-cache`). */
  cache?: boolean;
}): RawServer {
  const { command, args } = serverCommand();
  const cache = options.cache ? [] : ["--no-cache"];
  const proc = Bun.spawn(
    [command, ...args, "--conda", options.conda, ...cache, ...(options.args ?? [])],
    { stdin: "pipe", stdout: "pipe", stderr: "pipe", env: options.env },
  );
  const lines: string[] = [];
  let stderr = "";
  let done = false;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of waiters) waiter();
  };
  void proc.exited.then(() => {
    done = true;
    wake();
  });
  const stdoutDone = (async () => {
    const decoder = new TextDecoder();
    let pending = "";
    for await (const chunk of proc.stdout) {
      pending += decoder.decode(chunk, { stream: true });
      let newline = pending.indexOf("\n");
      while (newline !== -1) {
        lines.push(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
        newline = pending.indexOf("\n");
      }
      wake();
    }
    pending += decoder.decode();
    if (pending.length > 0) lines.push(pending);
    wake();
  })();
  const stderrDone = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr) stderr += decoder.decode(chunk, { stream: true });
  })();

  return {
    async write(data) {
      proc.stdin.write(data);
      await proc.stdin.flush();
    },
    lines: () => [...lines],
    async waitFor(what, predicate, ms = 30_000) {
      let seen = 0;
      let check = () => {};
      const search = new Promise<Record<string, unknown>>((resolve, reject) => {
        check = () => {
          for (; seen < lines.length; seen++) {
            const message = parseLine(lines[seen] as string);
            if (message && predicate(message)) {
              waiters.delete(check);
              resolve(message);
              return;
            }
          }
          if (done) {
            waiters.delete(check);
            reject(new Error(`server exited before ${what}; stderr: ${stderr.slice(-2000)}`));
          }
        };
        waiters.add(check);
        check();
      });
      try {
        return await withDeadline(search, ms, what);
      } finally {
        waiters.delete(check);
      }
    },
    stderr: () => stderr,
    exited: () => done,
    kill: (signal) => proc.kill(signal),
    async close() {
      try {
        proc.stdin.end();
      } catch {
        // Already closed by the server's exit.
      }
      try {
        await withDeadline(proc.exited, 15_000, "server exit after stdin closed");
      } catch (error) {
        proc.kill("SIGKILL");
        await proc.exited;
        throw error;
      }
      await withDeadline(Promise.all([stdoutDone, stderrDone]), 15_000, "server output closed");
      return proc.exitCode;
    },
  };
}
