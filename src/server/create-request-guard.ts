import type { HttpListen } from "../config/config-types.ts";
import { jsonRpcError } from "./http-sessions.ts";

/** The one path that serves MCP. */
export const MCP_HTTP_PATH = "/mcp";

const LOOPBACK_ORIGIN_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

// Bun's own hasher and the Web Crypto global's timingSafeEqual, not node:crypto (see randomHex).
function digest(text: string): Buffer {
  return new Bun.CryptoHasher("sha256").update(text).digest();
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

/**
 * The checks every HTTP request passes before MCP sees it: Host and Origin against DNS
 * rebinding, the bearer token, the path and the method. Returns the refusal, or null.
 * A refusal names what was expected, never what was sent.
 */
export function createRequestGuard(
  listen: HttpListen,
  port: number,
  token: string,
): (request: Request) => Response | null {
  const hosts = allowedHosts(listen, port);
  const expectedDigest = digest(token);
  const authorized = (header: string | null) => {
    const presented = header === null ? null : /^Bearer +(\S+) *$/i.exec(header)?.[1];
    // Digests have one length, so the comparison takes the same time whatever was sent.
    return crypto.timingSafeEqual(digest(presented ?? ""), expectedDigest) && presented != null;
  };
  return (request) => {
    const host = request.headers.get("host")?.toLowerCase() ?? "";
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
    return null;
  };
}
