import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { isJsonObject } from "../values.ts";

/** A JSON-RPC error reply; `id` is null when the request's id could not be read. */
export interface ErrorReply {
  jsonrpc: "2.0";
  id: string | number | null;
  error: { code: number; message: string };
}

/** A parsed message is dispatched, answered with an error, or (a bad response) dropped. */
export type ClientMessageCheck =
  | { ok: true; message: JSONRPCMessage }
  | { ok: false; reply: ErrorReply | null };

interface RequestSchema {
  safeParse(value: unknown): { success: boolean; error?: { issues: { path: PropertyKey[] }[] } };
}

// The requests this server handles. The SDK checks their params only after dispatch, and
// answers a mismatch as an internal error (-32603) instead of invalid params (-32602).
const REQUEST_SCHEMAS: ReadonlyMap<string, RequestSchema> = new Map<string, RequestSchema>([
  ["initialize", InitializeRequestSchema],
  ["ping", PingRequestSchema],
  ["tools/list", ListToolsRequestSchema],
  ["tools/call", CallToolRequestSchema],
  ["resources/list", ListResourcesRequestSchema],
  ["resources/templates/list", ListResourceTemplatesRequestSchema],
  ["resources/read", ReadResourceRequestSchema],
]);

/** An error reply for a request id (or null); the message never repeats what was sent. */
export function errorReply(id: string | number | null, code: number, message: string): ErrorReply {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

function readableId(value: unknown): string | number | null {
  if (!isJsonObject(value)) return null;
  const id = value.id;
  return typeof id === "string" || Number.isSafeInteger(id) ? (id as string | number) : null;
}

/**
 * Checks one parsed JSON value from a client the way JSON-RPC 2.0 asks: a batch or anything
 * that is not a JSON-RPC message is an invalid request (-32600), a request to a method this
 * server handles with params that do not fit is invalid params (-32602) naming only paths. A
 * malformed response gets no reply (responses are never answered).
 */
export function checkClientMessage(value: unknown): ClientMessageCheck {
  if (Array.isArray(value)) {
    return {
      ok: false,
      reply: errorReply(
        null,
        ErrorCode.InvalidRequest,
        "Invalid Request: batches are not supported",
      ),
    };
  }
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (!parsed.success) {
    if (isJsonObject(value) && !("method" in value) && ("result" in value || "error" in value)) {
      return { ok: false, reply: null };
    }
    return {
      ok: false,
      reply: errorReply(readableId(value), ErrorCode.InvalidRequest, "Invalid Request"),
    };
  }
  const message = parsed.data;
  if ("method" in message && "id" in message) {
    const check = REQUEST_SCHEMAS.get(message.method)?.safeParse(message);
    if (check && !check.success) {
      const paths = [
        ...new Set(check.error?.issues.map((i) => i.path.map(String).join(".")) ?? []),
      ];
      return {
        ok: false,
        reply: errorReply(
          message.id,
          ErrorCode.InvalidParams,
          `Invalid params: ${paths.slice(0, 5).join(", ") || "params"}`,
        ),
      };
    }
  }
  return { ok: true, message };
}
