import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { HttpListen } from "../config.ts";
import { CondaMcpError } from "../errors.ts";
import { checkClientMessage } from "./check-client-message.ts";

/** Most MCP sessions kept at once; to make room, the least recently used idle one is closed. */
export const MAX_HTTP_SESSIONS = 32;

/** The one path that serves MCP. */
export const MCP_HTTP_PATH = "/mcp";

/** What {@link serveHttp} needs: where to listen, the token's source, and a server per session. */
export interface ServeHttpOptions {
  listen: HttpListen;
  /** File holding the bearer token; null generates one and prints it once. */
  tokenFile: string | null;
  /** A fresh MCP server for one session; every session shares the same deps and queue. */
  createSessionServer: () => Server;
  /**
   * Aborting it stops serving: no new connections; once the calls in flight have answered (the
   * caller aborts their executions on the same signal, so they answer `cancelled`), every session
   * is closed.
   */
  stop: AbortSignal;
  platform: NodeJS.Platform;
  /** Diagnostics (stderr). */
  log: (line: string) => void;
}

interface Session {
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
  /** SSE streams the client still holds (its GET stream, POSTs waiting for responses). */
  openStreams: number;
  /** Order of last use, for evicting the least recently used idle session. */
  lastUsed: number;
}

type Message = { method?: unknown; id?: unknown };

// The SDK transport's own bound on a POST body.
const MAX_BODY_BYTES = 4 * 1024 * 1024;
// Bun closes a connection silent for this long; the SDK writes an SSE keep-alive comment every
// KEEP_ALIVE_MS, so streams held open by long conda calls stay up.
const IDLE_TIMEOUT_SECONDS = 60;
const KEEP_ALIVE_MS = 15_000;
const OPEN_COMMENT = ": open\n\n";
// Longest shutdown waits for aborted calls to answer: runProcess's grace, SIGKILL wait and drain.
const DRAIN_MS = 15_000;
// RFC 6750 b64token.
const TOKEN_SYNTAX = /^[A-Za-z0-9\-._~+/]+=*$/;
const MIN_TOKEN_LENGTH = 16;
const LOOPBACK_ORIGIN_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

function jsonRpcError(
  status: number,
  message: string,
  options: { code?: number; headers?: Record<string, string> } = {},
): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", error: { code: options.code ?? -32000, message }, id: null }),
    { status, headers: { "Content-Type": "application/json", ...options.headers } },
  );
}

function startupError(message: string): CondaMcpError {
  return new CondaMcpError(message, "INVALID_OPTION");
}

/** The token from --http-token-file, or a fresh one printed once; the file's path is never echoed. */
function loadToken(options: ServeHttpOptions): { token: string; where: string } {
  const { tokenFile, log } = options;
  if (tokenFile === null) {
    const token = randomBytes(32).toString("base64url");
    log(`bearer token for this run (send "Authorization: Bearer <token>"): ${token}`);
    return { token, where: "printed above" };
  }
  let text: string;
  try {
    text = readFileSync(tokenFile, "utf8");
  } catch {
    throw startupError("--http-token-file cannot be read");
  }
  const token = text.trim();
  if (!TOKEN_SYNTAX.test(token)) {
    throw startupError(
      "--http-token-file must hold one token of letters, digits and - . _ ~ + / (= at the end)",
    );
  }
  if (token.length < MIN_TOKEN_LENGTH) {
    throw startupError(
      `--http-token-file holds a token shorter than ${MIN_TOKEN_LENGTH} characters; make one with: openssl rand -base64 32`,
    );
  }
  // POSIX only: Windows has no group/other mode bits.
  if (options.platform !== "win32" && (statSync(tokenFile).mode & 0o077) !== 0) {
    log("warning: --http-token-file is readable by other users; chmod 600 it");
  }
  return { token, where: "from --http-token-file" };
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** Hosts a request may name; null when listening beyond loopback, where the token is the guard. */
function allowedHosts(listen: HttpListen, port: number): Set<string> | null {
  if (!listen.loopback) return null;
  const bound = listen.host.includes(":") ? `[${listen.host}]` : listen.host;
  return new Set([`${bound}:${port}`.toLowerCase(), `localhost:${port}`]);
}

/** A browser page may call only from a loopback origin; clients that are not browsers send none. */
function originAllowed(origin: string | null): boolean {
  if (origin === null) return true;
  try {
    const url = new URL(origin);
    return (
      (url.protocol === "http:" || url.protocol === "https:") &&
      LOOPBACK_ORIGIN_HOSTS.has(url.hostname)
    );
  } catch {
    return false;
  }
}

function parseMessages(body: string): Message[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  return list.filter((m): m is Message => typeof m === "object" && m !== null);
}

function requestIds(messages: Message[]): (string | number)[] {
  return messages.flatMap((m) =>
    typeof m.method === "string" && (typeof m.id === "string" || typeof m.id === "number")
      ? [m.id]
      : [],
  );
}

function waitForAbort(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/**
 * Serves MCP Streamable HTTP at `http://host:port/mcp` until `stop` aborts: a bearer token on
 * every request, Host and Origin checked against DNS rebinding, one SDK server per session
 * (bounded), and a client that drops a stream before its responses cancels those calls.
 */
export async function serveHttp(options: ServeHttpOptions): Promise<void> {
  const { listen, log } = options;
  const { token, where } = loadToken(options);
  const expectedDigest = digest(token);
  const sessions = new Map<string, Session>();
  let starting = 0;
  let useCounter = 0;
  /** POST streams still owing responses, across sessions. */
  let answering = 0;

  function authorized(header: string | null): boolean {
    const presented = header === null ? null : /^Bearer +(\S+) *$/i.exec(header)?.[1];
    // Digests have one length, so the comparison takes the same time whatever was sent.
    return timingSafeEqual(digest(presented ?? ""), expectedDigest) && presented != null;
  }

  /** Wraps an SSE body to count open streams and to cancel a POST's calls if the client leaves. */
  function watchStream(
    body: ReadableStream<Uint8Array>,
    session: Session,
    ids: (string | number)[],
  ): ReadableStream<Uint8Array> {
    session.openStreams++;
    if (ids.length > 0) answering++;
    let open = true;
    const ended = () => {
      if (!open) return;
      open = false;
      session.openStreams--;
      if (ids.length > 0) answering--;
      session.lastUsed = ++useCounter;
    };
    const reader = body.getReader();
    return new ReadableStream<Uint8Array>({
      start(controller) {
        // Bun sends the headers with the first chunk: an SSE comment now tells the client at once
        // that its stream is open (a GET stream may otherwise wait for the first keep-alive).
        controller.enqueue(new TextEncoder().encode(OPEN_COMMENT));
      },
      async pull(controller) {
        try {
          const chunk = await reader.read();
          if (chunk.done) {
            ended();
            controller.close();
          } else {
            controller.enqueue(chunk.value);
          }
        } catch (error) {
          ended();
          controller.error(error);
        }
      },
      cancel(reason) {
        ended();
        // Without an event store nothing can deliver these responses any more, and a call left
        // running would hold the shared queue: cancel the calls the SDK's own way (their signal
        // aborts and their process trees are killed; the SDK then sends no response).
        for (const requestId of ids) {
          session.transport.onmessage?.({
            jsonrpc: "2.0",
            method: "notifications/cancelled",
            params: { requestId, reason: "the client closed the connection" },
          });
        }
        return reader.cancel(reason);
      },
    });
  }

  async function serveInSession(
    session: Session,
    request: Request,
    messages: Message[],
  ): Promise<Response> {
    session.lastUsed = ++useCounter;
    const response = await session.transport.handleRequest(request);
    const isStream = response.headers.get("content-type")?.startsWith("text/event-stream");
    if (response.body === null || !isStream) return response;
    return new Response(watchStream(response.body, session, requestIds(messages)), {
      status: response.status,
      headers: response.headers,
    });
  }

  async function startSession(request: Request, messages: Message[]): Promise<Response> {
    if (sessions.size + starting >= MAX_HTTP_SESSIONS) {
      let idle: Session | undefined;
      for (const session of sessions.values()) {
        if (session.openStreams === 0 && (!idle || session.lastUsed < idle.lastUsed)) {
          idle = session;
        }
      }
      if (!idle) {
        return jsonRpcError(503, `Too many sessions: at most ${MAX_HTTP_SESSIONS} at once`, {
          headers: { "Retry-After": "5" },
        });
      }
      if (idle.transport.sessionId) sessions.delete(idle.transport.sessionId);
      await idle.server.close().catch(() => {});
    }
    starting++;
    try {
      const server = options.createSessionServer();
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        keepAliveMs: KEEP_ALIVE_MS,
        onsessioninitialized: (id) => {
          sessions.set(id, session);
        },
      });
      const session: Session = { server, transport, openStreams: 0, lastUsed: ++useCounter };
      // DELETE, eviction and shutdown all close the transport; the SDK then aborts every
      // running request of this session (their process trees are killed).
      server.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      const response = await serveInSession(session, request, messages);
      // A refused initialize leaves no session behind.
      if (transport.sessionId === undefined) await server.close().catch(() => {});
      return response;
    } finally {
      starting--;
    }
  }

  async function handle(request: Request, hosts: Set<string> | null): Promise<Response> {
    const host = request.headers.get("host")?.toLowerCase() ?? "";
    // Neither check echoes the header: a refusal names what was expected, never what was sent.
    if (hosts !== null && !hosts.has(host)) {
      return jsonRpcError(403, "Forbidden: the Host header must name this loopback server");
    }
    if (!originAllowed(request.headers.get("origin"))) {
      return jsonRpcError(403, "Forbidden: only a localhost Origin may call this server");
    }
    const authorization = request.headers.get("authorization");
    if (!authorized(authorization)) {
      return jsonRpcError(401, "Unauthorized: send Authorization: Bearer <token>", {
        headers: {
          "WWW-Authenticate":
            authorization === null
              ? 'Bearer realm="conda-mcp"'
              : 'Bearer realm="conda-mcp", error="invalid_token"',
        },
      });
    }
    if (new URL(request.url).pathname !== MCP_HTTP_PATH) {
      return jsonRpcError(404, `Not Found: the MCP endpoint is ${MCP_HTTP_PATH}`);
    }
    if (!["GET", "POST", "DELETE"].includes(request.method)) {
      return jsonRpcError(405, "Method not allowed.", { headers: { Allow: "GET, POST, DELETE" } });
    }

    let forwarded = request;
    let messages: Message[] = [];
    if (request.method === "POST") {
      // Read here (Bun bounds it by maxRequestBodySize) to learn the request ids; the transport
      // gets an identical request and does all validation itself.
      let body: string;
      try {
        body = await request.text();
      } catch {
        return jsonRpcError(400, "Bad Request: the request body could not be read");
      }
      messages = parseMessages(body);
      forwarded = new Request(request.url, { method: "POST", headers: request.headers, body });
    }
    const refusal = messages.length === 1 ? checkClientMessage(messages[0]) : null;
    // The SDK answers bad params of a handled method as an internal error: answer -32602 first.
    const early = refusal && !refusal.ok && refusal.reply ? Response.json(refusal.reply) : null;
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const session = sessions.get(sessionId);
      if (!session) return jsonRpcError(404, "Session not found", { code: -32001 });
      return early ?? serveInSession(session, forwarded, messages);
    }
    if (request.method === "POST" && messages.some((m) => m.method === "initialize")) {
      return early ?? startSession(forwarded, messages);
    }
    return jsonRpcError(400, "Bad Request: Mcp-Session-Id header is required");
  }

  let hosts: Set<string> | null = null;
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname: listen.host,
      port: listen.port,
      idleTimeout: IDLE_TIMEOUT_SECONDS,
      maxRequestBodySize: MAX_BODY_BYTES,
      fetch: (request) => handle(request, hosts),
      // A fault of ours: logged here, and the client learns nothing internal.
      error: (error) => {
        log(`internal error serving HTTP: ${error.stack ?? error.message}`);
        return jsonRpcError(500, "Internal error");
      },
    });
  } catch {
    throw startupError(`--http cannot listen on that address: it is in use or not available`);
  }
  const port = server.port ?? listen.port;
  hosts = allowedHosts(listen, port);
  const urlHost = listen.host.includes(":") ? `[${listen.host}]` : listen.host;
  log(
    `serving MCP over Streamable HTTP at http://${urlHost}:${port}${MCP_HTTP_PATH} (bearer token ${where})`,
  );
  if (!listen.loopback) {
    log(
      "warning: listening beyond this machine over plain HTTP; anyone who can reach the port and has the token can run conda",
    );
  }

  await waitForAbort(options.stop);
  // Stop accepting; let the aborted calls deliver their results so no client is left waiting
  // for an answer; then close every session (the SDK aborts whatever still runs).
  const stopped = server.stop(false);
  const drainEnd = Date.now() + DRAIN_MS;
  while (answering > 0 && Date.now() < drainEnd) await Bun.sleep(20);
  await Promise.all([...sessions.values()].map((s) => s.server.close().catch(() => {})));
  await Promise.race([stopped, Bun.sleep(1000)]);
  await server.stop(true);
}
