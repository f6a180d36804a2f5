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
