import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";

/** Most MCP sessions kept at once; to make room, the least recently used idle one is closed. */
export const MAX_HTTP_SESSIONS = 32;

/** A JSON-RPC message as far as the HTTP layer looks at it. */
export type HttpMessage = { method?: unknown; id?: unknown };

interface Session {
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
  /** SSE streams the client still holds (its GET stream, POSTs waiting for responses). */
  openStreams: number;
  /** Order of last use, for evicting the least recently used idle session. */
  lastUsed: number;
}

// The SDK writes an SSE keep-alive comment this often, so streams held open by long conda calls
// stay up through Bun's idle timeout.
const KEEP_ALIVE_MS = 15_000;
const OPEN_COMMENT = ": open\n\n";

function requestIds(messages: HttpMessage[]): (string | number)[] {
  return messages.flatMap((m) =>
    typeof m.method === "string" && (typeof m.id === "string" || typeof m.id === "number")
      ? [m.id]
      : [],
  );
}

/**
 * The MCP sessions of one HTTP server: one SDK server each, at most MAX_HTTP_SESSIONS, and their
 * SSE streams watched, so that a client that drops a stream before its responses cancels those
 * calls.
 */
export class HttpSessions {
  readonly #sessions = new Map<string, Session>();
  readonly #createServer: () => Server;
  #starting = 0;
  #useCounter = 0;
  /** POST streams still owing responses, across sessions. */
  #answering = 0;

  constructor(createSessionServer: () => Server) {
    this.#createServer = createSessionServer;
  }

  /** How many POST streams still owe responses. */
  get answering(): number {
    return this.#answering;
  }

  /** Serves a request of an existing session, or answers 404 when there is none. */
  serve(sessionId: string, request: Request, messages: HttpMessage[]): Promise<Response> {
    const session = this.#sessions.get(sessionId);
    if (!session) return Promise.resolve(jsonRpcError(404, "Session not found", { code: -32001 }));
    return this.#serveIn(session, request, messages);
  }

  /** Starts a session for an initialize request, evicting the least recently used idle one. */
  async start(request: Request, messages: HttpMessage[]): Promise<Response> {
    if (this.#sessions.size + this.#starting >= MAX_HTTP_SESSIONS) {
      const idle = this.#leastRecentlyUsedIdle();
      if (!idle) {
        return jsonRpcError(503, `Too many sessions: at most ${MAX_HTTP_SESSIONS} at once`, {
          headers: { "Retry-After": "5" },
        });
      }
      if (idle.transport.sessionId) this.#sessions.delete(idle.transport.sessionId);
      await idle.server.close().catch(() => {});
    }
    this.#starting++;
    try {
      const server = this.#createServer();
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        keepAliveMs: KEEP_ALIVE_MS,
        onsessioninitialized: (id) => {
          this.#sessions.set(id, session);
        },
      });
      const session: Session = { server, transport, openStreams: 0, lastUsed: ++this.#useCounter };
      // DELETE, eviction and shutdown all close the transport; the SDK then aborts every
      // running request of this session (their process trees are killed).
      server.onclose = () => {
        if (transport.sessionId !== undefined) this.#sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      const response = await this.#serveIn(session, request, messages);
      // A refused initialize leaves no session behind.
      if (transport.sessionId === undefined) await server.close().catch(() => {});
      return response;
    } finally {
      this.#starting--;
    }
  }

  /** Closes every session; the SDK aborts whatever still runs in them. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((s) => s.server.close().catch(() => {})));
  }

  #leastRecentlyUsedIdle(): Session | undefined {
    let idle: Session | undefined;
    for (const session of this.#sessions.values()) {
      if (session.openStreams === 0 && (!idle || session.lastUsed < idle.lastUsed)) idle = session;
    }
    return idle;
  }

  async #serveIn(session: Session, request: Request, messages: HttpMessage[]): Promise<Response> {
    session.lastUsed = ++this.#useCounter;
    const response = await session.transport.handleRequest(request);
    const isStream = response.headers.get("content-type")?.startsWith("text/event-stream");
    if (response.body === null || !isStream) return response;
    return new Response(this.#watchStream(response.body, session, requestIds(messages)), {
      status: response.status,
      headers: response.headers,
    });
  }

  /** Wraps an SSE body to count open streams and to cancel a POST's calls if the client leaves. */
  #watchStream(
    body: ReadableStream<Uint8Array>,
    session: Session,
    ids: (string | number)[],
  ): ReadableStream<Uint8Array> {
    session.openStreams++;
    if (ids.length > 0) this.#answering++;
    let open = true;
    const ended = () => {
      if (!open) return;
      open = false;
      session.openStreams--;
      if (ids.length > 0) this.#answering--;
      session.lastUsed = ++this.#useCounter;
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
}

/** A JSON-RPC error as an HTTP response, for refusals made before any MCP session answers. */
export function jsonRpcError(
  status: number,
  message: string,
  options: { code?: number; headers?: Record<string, string> } = {},
): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", error: { code: options.code ?? -32000, message }, id: null }),
    { status, headers: { "Content-Type": "application/json", ...options.headers } },
  );
}
