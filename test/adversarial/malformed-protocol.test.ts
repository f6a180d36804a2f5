import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { initializeLine, type RawServer, spawnRawServer } from "../support/spawn-raw-server.ts";

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const MIB = 1024 * 1024;

let fixture: FixtureConda;
let server: RawServer;

beforeAll(async () => {
  fixture = await makeFixtureConda();
  server = spawnRawServer({ conda: fixture.condaExe, env: fixture.env });
}, 60_000);

afterAll(async () => {
  await server?.close().catch(() => {});
  await fixture?.cleanup();
});

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function isId(id: unknown): boolean {
  return typeof id === "string" || Number.isSafeInteger(id);
}

/** Why a stdout line is not one well-formed JSON-RPC 2.0 message from a server, or null. */
function malformation(line: string): string | null {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return "not JSON";
  }
  if (!isObject(message)) return "not an object";
  if (message.jsonrpc !== "2.0") return "jsonrpc is not 2.0";
  const keys = Object.keys(message).filter(
    (k) => !["jsonrpc", "id", "method", "params", "result", "error"].includes(k),
  );
  if (keys.length > 0) return `unexpected members ${keys.join(", ")}`;
  if ("method" in message) {
    if (typeof message.method !== "string") return "method is not a string";
    if ("id" in message && !isId(message.id)) return "request id is not a string or integer";
    if ("params" in message && !isObject(message.params)) return "params is not an object";
    return "result" in message || "error" in message ? "request with result or error" : null;
  }
  if ("result" in message) {
    if (!isId(message.id)) return "result without a request id";
    return !isObject(message.result) || "error" in message ? "malformed result" : null;
  }
  if ("error" in message) {
    // An error may only lack a usable id when the request's id could not be read.
    if (message.id !== null && !isId(message.id)) return "error with a malformed id";
    const error = message.error;
    if (!isObject(error) || !Number.isSafeInteger(error.code) || typeof error.message !== "string")
      return "malformed error object";
    return null;
  }
  return "neither request, notification nor response";
}

let sentinels = 0;

/**
 * Sends one line and then a ping; everything the server wrote between the two is its answer
 * to the line (the server answers a line it cannot dispatch before reading the next one).
 */
async function answersTo(line: string | Uint8Array): Promise<Record<string, unknown>[]> {
  const id = `sentinel-${++sentinels}`;
  const before = server.lines().length;
  await server.write(line);
  await server.write(`${JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })}\n`);
  await server.waitFor(`answer to ping ${id}`, (m) => m.id === id);
  return server
    .lines()
    .slice(before)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((m) => m.id !== id);
}

function errorCode(message: Record<string, unknown> | undefined): unknown {
  return isObject(message?.error) ? message.error.code : undefined;
}

const NO_ID_ANSWERS: [string, string, number][] = [
  ["a line of garbage", "garbage\n", PARSE_ERROR],
  ["unterminated JSON", '{"jsonrpc": "2.0", "id": 1, "method": "pi\n', PARSE_ERROR],
  ["control bytes", "\u0001\u0002\u0000\n", PARSE_ERROR],
  ["an object as id", '{"jsonrpc":"2.0","id":{},"method":"ping"}\n', INVALID_REQUEST],
  ["a null id", '{"jsonrpc":"2.0","id":null,"method":"ping"}\n', INVALID_REQUEST],
  ["a fractional id", '{"jsonrpc":"2.0","id":1.5,"method":"ping"}\n', INVALID_REQUEST],
  ["a batch", '[{"jsonrpc":"2.0","id":"in-batch","method":"ping"}]\n', INVALID_REQUEST],
  ["an empty batch", "[]\n", INVALID_REQUEST],
  ["a number", "5\n", INVALID_REQUEST],
  ["a string", '"ping"\n', INVALID_REQUEST],
  ["null", "null\n", INVALID_REQUEST],
  ["a notification with a numeric method", '{"jsonrpc":"2.0","method":5}\n', INVALID_REQUEST],
];

const ID_ANSWERS: [string, Record<string, unknown>, number][] = [
  ["a numeric method", { jsonrpc: "2.0", id: 7, method: 5 }, INVALID_REQUEST],
  ["params as a string", { jsonrpc: "2.0", id: 8, method: "ping", params: "str" }, INVALID_REQUEST],
  ["params as an array", { jsonrpc: "2.0", id: 9, method: "ping", params: [1] }, INVALID_REQUEST],
  ["jsonrpc 1.0", { jsonrpc: "1.0", id: 10, method: "ping" }, INVALID_REQUEST],
  ["no jsonrpc member", { id: 11, method: "ping" }, INVALID_REQUEST],
  ["an unknown method", { jsonrpc: "2.0", id: 12, method: "no/such/method" }, METHOD_NOT_FOUND],
  ["a prototype name as method", { jsonrpc: "2.0", id: 13, method: "__proto__" }, METHOD_NOT_FOUND],
  [
    "a notification's method with an id",
    { jsonrpc: "2.0", id: 14, method: "notifications/initialized" },
    METHOD_NOT_FOUND,
  ],
  [
    "resources/read with a numeric uri",
    { jsonrpc: "2.0", id: 15, method: "resources/read", params: { uri: 5 } },
    INVALID_PARAMS,
  ],
  [
    "tools/call with a numeric name",
    { jsonrpc: "2.0", id: 16, method: "tools/call", params: { name: 5 } },
    INVALID_PARAMS,
  ],
  [
    "tools/call with arguments as an array",
    { jsonrpc: "2.0", id: 17, method: "tools/call", params: { name: "conda_info", arguments: [] } },
    INVALID_PARAMS,
  ],
  [
    "tools/call of an unknown tool",
    { jsonrpc: "2.0", id: 18, method: "tools/call", params: { name: "__proto__" } },
    INVALID_PARAMS,
  ],
  [
    "initialize with a numeric protocol version",
    { jsonrpc: "2.0", id: 19, method: "initialize", params: { protocolVersion: 5 } },
    INVALID_PARAMS,
  ],
];

describe("malformed protocol input on stdio", () => {
  test.each(NO_ID_ANSWERS)(
    "%s gets one error with a null id and the right code",
    async (_what, line, code) => {
      const answers = await answersTo(line);
      expect(answers.length).toBe(1);
      expect(answers[0]?.id).toBeNull();
      expect(errorCode(answers[0])).toBe(code);
    },
  );

  test.each(ID_ANSWERS)(
    "%s gets one error for its id with the right code",
    async (_what, message, code) => {
      const answers = await answersTo(`${JSON.stringify(message)}\n`);
      expect(answers.length).toBe(1);
      expect(answers[0]?.id).toBe(message.id as number);
      expect(errorCode(answers[0])).toBe(code);
    },
  );

  test.each([
    [
      "a cancellation of an unknown request",
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 999 } },
    ],
    ["an unknown notification", { jsonrpc: "2.0", method: "no/such/notification" }],
    ["a response nobody asked for", { jsonrpc: "2.0", id: 20, result: {} }],
    ["a malformed response", { jsonrpc: "2.0", id: 21, error: { code: "x" } }],
  ])("%s is not answered", async (_what, message) => {
    expect(await answersTo(`${JSON.stringify(message)}\n`)).toEqual([]);
  });

  test("blank lines are not answered and CRLF line ends are accepted", async () => {
    expect(await answersTo("\n  \n\r\n")).toEqual([]);
    const answers = await answersTo('{"jsonrpc":"2.0","id":"crlf","method":"ping"}\r\n');
    expect(answers).toEqual([{ jsonrpc: "2.0", id: "crlf", result: {} }]);
  });

  test("a request before initialize is answered for its id", async () => {
    await server.write('{"jsonrpc":"2.0","id":"early","method":"tools/list"}\n');
    const answer = await server.waitFor("answer to the early tools/list", (m) => m.id === "early");
    expect("result" in answer || "error" in answer).toBe(true);
  });

  test("an 8 MiB line of garbage is a parse error and an 8 MiB request is served", async () => {
    const garbage = await answersTo(`${"x".repeat(8 * MIB)}\n`);
    expect(garbage.map(errorCode)).toEqual([PARSE_ERROR]);
    const big = {
      jsonrpc: "2.0",
      id: "big",
      method: "ping",
      params: { _meta: { pad: "y".repeat(8 * MIB) } },
    };
    expect(await answersTo(`${JSON.stringify(big)}\n`)).toEqual([
      { jsonrpc: "2.0", id: "big", result: {} },
    ]);
  }, 60_000);

  test("a line over the size limit is refused and the server keeps reading", async () => {
    // Written in pieces, as a pipe delivers it.
    const piece = new Uint8Array(MIB).fill(0x7a);
    const sentinel = `sentinel-${++sentinels}`;
    const before = server.lines().length;
    for (let i = 0; i < 24; i++) await server.write(piece);
    await server.write(`\n${JSON.stringify({ jsonrpc: "2.0", id: sentinel, method: "ping" })}\n`);
    await server.waitFor("ping after the oversized line", (m) => m.id === sentinel, 60_000);
    const answers = server
      .lines()
      .slice(before)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((m) => m.id !== sentinel);
    expect(answers.map((a) => [a.id, errorCode(a)])).toEqual([[null, INVALID_REQUEST]]);
  }, 90_000);

  test("after all that, initialize and tools/list work and stdout held only JSON-RPC", async () => {
    await server.write(initializeLine("init"));
    const init = await server.waitFor("initialize result", (m) => m.id === "init");
    expect((init.result as { serverInfo: { name: string } }).serverInfo.name).toBe("conda-mcp");
    await server.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    await server.write('{"jsonrpc":"2.0","id":"list","method":"tools/list"}\n');
    const list = await server.waitFor("tools/list result", (m) => m.id === "list");
    const names = (list.result as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names).toContain("conda_info");
    await server.write(
      '{"jsonrpc":"2.0","id":"call","method":"tools/call","params":{"name":"conda_info","arguments":{"json":true}}}\n',
    );
    const call = await server.waitFor("tools/call result", (m) => m.id === "call");
    expect(
      (call.result as { structuredContent: { exit_code: number } }).structuredContent.exit_code,
    ).toBe(0);

    const lines = server.lines();
    expect(lines.map(malformation).filter((m) => m !== null)).toEqual([]);
    // One answer per request id, and none to responses or notifications.
    const ids = lines
      .map((l) => (JSON.parse(l) as { id?: unknown }).id)
      .filter((id) => id !== null && id !== undefined);
    expect(ids.length).toBe(new Set(ids).size);
    expect(ids).not.toContain(20);
    expect(ids).not.toContain(21);
    for (const line of lines.filter((l) => l.includes('"error"'))) {
      expect(line).not.toContain("garbage");
      expect(line).not.toContain("xxxx");
      expect(line).not.toContain("__proto__");
    }
    expect(await server.close()).toBe(0);
  }, 60_000);
});
