import { readFileSync, statSync } from "node:fs";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { HttpListen } from "../config/config-types.ts";
import { CondaMcpError } from "../errors.ts";
import { checkClientMessage } from "../stdio/check-client-message.ts";
import { createRequestGuard, MCP_HTTP_PATH } from "./create-request-guard.ts";
import { type HttpMessage, HttpSessions, jsonRpcError } from "./http-sessions.ts";

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

// The SDK transport's own bound on a POST body.
const MAX_BODY_BYTES = 4 * 1024 * 1024;
// Bun closes a connection silent for this long; the sessions' SSE keep-alives come more often.
const IDLE_TIMEOUT_SECONDS = 60;
// Longest shutdown waits for aborted calls to answer before closing the sessions; conda's
// rollbacks may go on after that, and the server's shutdown waits for those itself.
const DRAIN_MS = 15_000;
// RFC 6750 b64token.
const TOKEN_SYNTAX = /^[A-Za-z0-9\-._~+/]+=*$/;
const MIN_TOKEN_LENGTH = 16;

function startupError(message: string): CondaMcpError {
  return new CondaMcpError(message, "INVALID_OPTION");
}

/** The token from --http-token-file, or a fresh one printed once; the file's path is never echoed. */
function loadToken(options: ServeHttpOptions): { token: string; where: string } {
  const { tokenFile, log } = options;
  if (tokenFile === null) {
    // Web Crypto, not node:crypto: see randomHex.
    const token = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
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

function parseMessages(body: string): HttpMessage[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  return list.filter((m): m is HttpMessage => typeof m === "object" && m !== null);
}

function waitForAbort(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/** Reads a POST's body to learn its messages; the transport gets an identical request. */
async function readMessages(
  request: Request,
): Promise<{ forwarded: Request; messages: HttpMessage[] } | Response> {
  if (request.method !== "POST") return { forwarded: request, messages: [] };
  // Bun bounds the body by maxRequestBodySize; the transport does all validation itself.
  let body: string;
  try {
    body = await request.text();
  } catch {
    return jsonRpcError(400, "Bad Request: the request body could not be read");
  }
  const forwarded = new Request(request.url, { method: "POST", headers: request.headers, body });
  return { forwarded, messages: parseMessages(body) };
}

/** Routes a request that passed the guard to its session, or starts one for an initialize. */
async function route(request: Request, sessions: HttpSessions): Promise<Response> {
  const read = await readMessages(request);
  if (read instanceof Response) return read;
  const { forwarded, messages } = read;
  const refusal = messages.length === 1 ? checkClientMessage(messages[0]) : null;
  // The SDK answers bad params of a handled method as an internal error: answer -32602 first.
  const early = refusal && !refusal.ok && refusal.reply ? Response.json(refusal.reply) : null;
  const sessionId = request.headers.get("mcp-session-id");
  if (sessionId !== null) return early ?? sessions.serve(sessionId, forwarded, messages);
  if (request.method === "POST" && messages.some((m) => m.method === "initialize")) {
    return early ?? sessions.start(forwarded, messages);
  }
  return jsonRpcError(400, "Bad Request: Mcp-Session-Id header is required");
}

/**
 * Serves MCP Streamable HTTP at `http://host:port/mcp` until `stop` aborts: a bearer token on
 * every request, Host and Origin checked against DNS rebinding, one SDK server per session
 * (bounded), and a client that drops a stream before its responses cancels those calls.
 */
export async function serveHttp(options: ServeHttpOptions): Promise<void> {
  const { listen, log } = options;
  const { token, where } = loadToken(options);
  const sessions = new HttpSessions(options.createSessionServer);
  let guard: ((request: Request) => Response | null) | null = null;
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname: listen.host,
      port: listen.port,
      idleTimeout: IDLE_TIMEOUT_SECONDS,
      maxRequestBodySize: MAX_BODY_BYTES,
      // The guard needs the bound port; no request is served without it.
      fetch: (request) =>
        guard === null
          ? jsonRpcError(503, "Service Unavailable: starting")
          : (guard(request) ?? route(request, sessions)),
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
  guard = createRequestGuard(listen, port, token);
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
  while (sessions.answering > 0 && Date.now() < drainEnd) await Bun.sleep(20);
  await sessions.closeAll();
  await Promise.race([stopped, Bun.sleep(1000)]);
  await server.stop(true);
}
