import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import {
  connectHttp,
  type HttpServer,
  startHttpServer as startHttp,
} from "../support/start-http-server.ts";
import { serverCommand, withDeadline } from "../support/start-server.ts";
import { alive, pidsIn, waitFor } from "../support/watch-processes.ts";

const TOKEN = "test-token-0123456789abcdefghijklmnop";
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "raw-http", version: "0" },
  },
};

let fixture: FixtureConda;
let tokenFile: string;
let server: HttpServer;

const started: HttpServer[] = [];

async function startHttpServer(args: string[]): Promise<HttpServer> {
  const handle = await startHttp({
    conda: fixture.condaExe,
    env: fixture.env,
    args,
    fallbackToken: TOKEN,
  });
  started.push(handle);
  return handle;
}

const connect = connectHttp;

function post(
  target: HttpServer,
  headers: Record<string, string>,
  body: unknown = INITIALIZE,
): Promise<Response> {
  return withDeadline(
    fetch(target.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify(body),
    }),
    30_000,
    "raw POST",
  );
}

/** conda_run of a shell that records its pid and a sleeping child's pid, then waits. */
function treeCall(client: Client, pidFile: string, signal?: AbortSignal): Promise<unknown> {
  return client
    .callTool(
      {
        name: "conda_run",
        arguments: {
          no_capture_output: true,
          executable_call: [
            "sh",
            "-c",
            `echo $$ >> ${pidFile}; sleep 1000 & echo $! >> ${pidFile}; wait`,
          ],
        },
      },
      undefined,
      { signal, timeout: 120_000 },
    )
    .catch((error: Error) => error);
}

async function expectTreeGone(pidFile: string): Promise<void> {
  const pids = pidsIn(pidFile);
  expect(pids.length).toBe(2);
  await waitFor(() => pids.every((pid) => !alive(pid)), 15_000, "every descendant gone");
}

async function expectStillServing(target: HttpServer): Promise<void> {
  const client = await connect(target);
  const info = (await withDeadline(
    client.callTool({ name: "conda_info", arguments: { json: true } }),
    30_000,
    "conda_info",
  )) as CallToolResult;
  expect((info.structuredContent as { exit_code: number }).exit_code).toBe(0);
  await client.close();
}

beforeAll(async () => {
  fixture = await makeFixtureConda();
  tokenFile = join(fixture.root, "token");
  writeFileSync(tokenFile, `${TOKEN}\n`);
  chmodSync(tokenFile, 0o600);
  server = await startHttpServer(["--allow-exec", "--http-token-file", tokenFile]);
});

afterAll(async () => {
  for (const s of started) await s.kill("SIGKILL").catch(() => {});
  await fixture?.cleanup();
});

describe("--http options", () => {
  test("the server refuses to start on a non-loopback address without --http-allow-remote", async () => {
    const { command, args } = serverCommand();
    const proc = Bun.spawn([command, ...args, "--conda", fixture.condaExe, "--http", "0.0.0.0:0"], {
      env: fixture.env,
      stdout: "ignore",
      stderr: "pipe",
    });
    const [code, stderr] = await withDeadline(
      Promise.all([proc.exited, new Response(proc.stderr).text()]),
      30_000,
      "refused start",
    );
    expect(code).toBe(2);
    expect(stderr).toContain("--http-allow-remote");
  });

  test.each([
    ["sh0rtTok", "--http-token-file holds a token shorter than"],
    ["tw0 w0rds in here, n0t a t0ken", "--http-token-file must hold one token"],
  ])("a token file holding %j is refused at startup", async (content, message) => {
    const file = join(fixture.root, "bad-token");
    writeFileSync(file, content);
    const { command, args } = serverCommand();
    const proc = Bun.spawn(
      [command, ...args, "--conda", fixture.condaExe, "--no-cache", "--http", "0"].concat([
        "--http-token-file",
        file,
      ]),
      { env: fixture.env, stdout: "ignore", stderr: "pipe" },
    );
    const [code, stderr] = await withDeadline(
      Promise.all([proc.exited, new Response(proc.stderr).text()]),
      60_000,
      "refused start",
    );
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    expect(stderr).not.toContain(content);
  });
});

describe("Streamable HTTP", () => {
  test("bad params of a handled method are answered -32602, as on stdio, without echoing them", async () => {
    const auth = { Authorization: `Bearer ${server.token}` };
    const init = await post(server, auth);
    const session = init.headers.get("mcp-session-id") ?? "";
    expect(session).not.toBe("");
    await init.body?.cancel();
    const headers = { ...auth, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
    await post(server, headers, { jsonrpc: "2.0", method: "notifications/initialized" });
    const bad = await post(server, headers, {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: ["SNEAKY-params"] },
    });
    const reply = await bad.json();
    expect(reply).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32602 } });
    expect(JSON.stringify(reply)).not.toContain("SNEAKY");
  });

  test("lists tools, reads the capabilities and calls conda_info over HTTP", async () => {
    const client = await connect(server);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["conda_info", "conda_run"]));
    const read = await client.readResource({ uri: "conda://capabilities" });
    expect(JSON.parse((read.contents[0] as { text: string }).text).conda_version).toBe("26.7.0");
    const result = (await client.callTool({
      name: "conda_info",
      arguments: { json: true },
    })) as CallToolResult;
    expect(result.isError).toBe(false);
    const structured = result.structuredContent as { parsed_json: { conda_version: string } };
    expect(structured.parsed_json.conda_version).toBe("26.7.0");
    await client.close();
  });

  test("the same policy applies: a write is refused naming --allow-write", async () => {
    const client = await connect(server);
    const result = (await client.callTool({
      name: "conda_install",
      arguments: { name: "demo", packages: ["numpy"] },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("--allow-write");
    await client.close();
  });

  test("the listening line names the URL and where the token is, never the token", () => {
    const line =
      server
        .stderr()
        .split("\n")
        .find((l) => l.includes("serving MCP")) ?? "";
    expect(line).toMatch(/http:\/\/127\.0\.0\.1:\d+\/mcp/);
    expect(line).toContain("from --http-token-file");
    expect(server.stderr()).not.toContain(TOKEN);
  });

  test.each([
    ["no Authorization header", null, 'Bearer realm="conda-mcp"'],
    ["a wrong token", `Bearer ${TOKEN}x`, 'error="invalid_token"'],
    ["a prefix of the token", `Bearer ${TOKEN.slice(0, 10)}`, 'error="invalid_token"'],
    ["another scheme", `Basic ${btoa(`u:${TOKEN}`)}`, 'error="invalid_token"'],
    ["an empty bearer", "Bearer ", 'error="invalid_token"'],
  ])("%s gets 401 with WWW-Authenticate: Bearer", async (_what, authorization, challenge) => {
    const response = await post(server, authorization === null ? {} : { authorization });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain(challenge);
    const body = await response.text();
    expect(body).not.toContain(TOKEN);
  });

  test("a client holding a wrong token cannot connect", async () => {
    const error = await connect(server, "not-the-token-at-all").catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
  });

  test.each([
    ["a foreign host", (port: string) => `evil.example.com:${port}`],
    ["a foreign host with the loopback address's name in it", () => "127.0.0.1.evil.example.com"],
    ["loopback on another port", (port: string) => `127.0.0.1:${Number(port) + 1}`],
    ["no port", () => "localhost"],
  ])("a Host header naming %s is refused with 403", async (_what, hostFor) => {
    const host = hostFor(server.url.port);
    const response = await post(server, { host, authorization: `Bearer ${TOKEN}` });
    expect(response.status).toBe(403);
    expect(await response.text()).not.toContain(host);
  });

  test.each([
    ["http://evil.example.com"],
    ["https://localhost.evil.example.com"],
    ["null"],
    ["file://"],
    ["chrome-extension://abcdef"],
  ])("a foreign Origin %s is refused with 403", async (origin) => {
    const response = await post(server, { origin, authorization: `Bearer ${TOKEN}` });
    expect(response.status).toBe(403);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).not.toContain(origin);
  });

  test.each([
    ["localhost Host, no Origin", { host: "localhost:PORT" }],
    ["loopback Origin on another port", { origin: "http://localhost:6274" }],
    ["IPv6 loopback Origin", { origin: "https://[::1]:3000" }],
    ["127.0.0.1 Origin", { origin: "http://127.0.0.1" }],
  ])("%s is accepted", async (_what, headers) => {
    const resolved = Object.fromEntries(
      Object.entries(headers).map(([k, v]) => [k, v.replace("PORT", server.url.port)]),
    );
    // A session-less GET passes every guard and then needs a session: 400 means it got through.
    const response = await withDeadline(
      fetch(server.url, {
        headers: { ...resolved, authorization: `Bearer ${TOKEN}`, accept: "text/event-stream" },
      }),
      30_000,
      "GET",
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("Mcp-Session-Id");
  });

  test("an unknown session is 404 and only /mcp serves", async () => {
    const unknown = await post(
      server,
      { authorization: `Bearer ${TOKEN}`, "mcp-session-id": "no-such-session" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
    );
    expect(unknown.status).toBe(404);
    const other = await fetch(new URL("/other", server.url), {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(other.status).toBe(404);
  });

  test("executions of two sessions are serialized by the one queue", async () => {
    const [a, b] = await Promise.all([connect(server), connect(server)]);
    const log = join(fixture.root, "http-serial-log");
    const script = `echo start >> ${log}; sleep 0.2; echo end >> ${log}`;
    const call = (client: Client) =>
      client.callTool({
        name: "conda_run",
        arguments: { no_capture_output: true, executable_call: ["sh", "-c", script] },
      });
    await withDeadline(
      Promise.all([call(a), call(b), call(a), call(b)]),
      60_000,
      "four calls from two sessions",
    );
    const events = readFileSync(log, "utf8").trim().split("\n");
    expect(events).toEqual(["start", "end", "start", "end", "start", "end", "start", "end"]);
    await Promise.all([a.close(), b.close()]);
  });

  test("cancelling a call over HTTP kills its process tree and the server keeps serving", async () => {
    const client = await connect(server);
    const pidFile = join(fixture.root, "http-cancel-pids");
    const controller = new AbortController();
    const pending = treeCall(client, pidFile, controller.signal);
    await waitFor(() => pidsIn(pidFile).length === 2, 15_000, "tree started");
    controller.abort();
    expect(await withDeadline(pending, 15_000, "cancelled call")).toBeInstanceOf(Error);
    await expectTreeGone(pidFile);
    await client.close();
    await expectStillServing(server);
  });

  test("closing the client mid-call kills the call's process tree", async () => {
    const client = await connect(server);
    const pidFile = join(fixture.root, "http-close-pids");
    const pending = treeCall(client, pidFile);
    await waitFor(() => pidsIn(pidFile).length === 2, 15_000, "tree started");
    await client.close();
    await withDeadline(pending, 15_000, "call of a closed client");
    await expectTreeGone(pidFile);
    await expectStillServing(server);
  });

  test("ending the session with DELETE mid-call kills the call's process tree", async () => {
    const transport = new StreamableHTTPClientTransport(server.url, {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    });
    const client = new Client({ name: "conda-mcp-http-tests", version: "0.0.0" });
    await withDeadline(client.connect(transport), 30_000, "connect");
    const sessionId = transport.sessionId;
    const pidFile = join(fixture.root, "http-delete-pids");
    const pending = treeCall(client, pidFile);
    await waitFor(() => pidsIn(pidFile).length === 2, 15_000, "tree started");
    await withDeadline(transport.terminateSession(), 15_000, "DELETE");
    await expectTreeGone(pidFile);
    await client.close();
    await withDeadline(pending, 15_000, "call of a deleted session");
    const after = await post(
      server,
      { authorization: `Bearer ${TOKEN}`, "mcp-session-id": sessionId ?? "" },
      { jsonrpc: "2.0", id: 3, method: "tools/list" },
    );
    expect(after.status).toBe(404);
  });
});

describe("session bound", () => {
  /** Initializes a session over raw HTTP, reads the answer to its end, returns its id. */
  async function openSession(target: HttpServer): Promise<string> {
    const response = await post(target, { authorization: `Bearer ${TOKEN}` });
    await withDeadline(response.text(), 30_000, "initialize answer");
    if (response.status !== 200) throw new Error(`initialize answered ${response.status}`);
    const id = response.headers.get("mcp-session-id");
    if (!id) throw new Error("no session id");
    return id;
  }

  /** Holds the session's GET stream open (the session is busy) until the returned close(). */
  async function holdStream(target: HttpServer, sessionId: string): Promise<() => Promise<void>> {
    const controller = new AbortController();
    const response = await withDeadline(
      fetch(target.url, {
        headers: {
          authorization: `Bearer ${TOKEN}`,
          accept: "text/event-stream",
          "mcp-session-id": sessionId,
        },
        signal: controller.signal,
      }),
      30_000,
      "GET stream",
    );
    expect(response.status).toBe(200);
    return async () => {
      controller.abort();
      await response.body?.cancel().catch(() => {});
    };
  }

  function listTools(target: HttpServer, sessionId: string): Promise<Response> {
    return post(
      target,
      { authorization: `Bearer ${TOKEN}`, "mcp-session-id": sessionId },
      { jsonrpc: "2.0", id: 9, method: "tools/list" },
    );
  }

  test("at most 32 sessions: when all hold a stream a new one gets 503, and an idle one makes room", async () => {
    const target = await startHttpServer(["--http-token-file", tokenFile]);
    const ids: string[] = [];
    for (let i = 0; i < 32; i++) ids.push(await openSession(target));
    const releases = await Promise.all(ids.map((id) => holdStream(target, id)));

    const refused = await post(target, { authorization: `Bearer ${TOKEN}` });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBeString();

    // Only the second session becomes idle: it is the one closed for the newcomer.
    const [first, second] = [ids[0] as string, ids[1] as string];
    await releases[1]?.();
    await retry(() => openSession(target), "a session after one became idle");
    expect((await listTools(target, second)).status).toBe(404);
    expect((await listTools(target, first)).status).toBe(200);
    for (const release of [releases[0], ...releases.slice(2)]) await release?.();
    expect(await target.kill("SIGTERM")).toBe(0);
  }, 120_000);

  test("among idle sessions the least recently used one is closed", async () => {
    const target = await startHttpServer(["--http-token-file", tokenFile]);
    const ids: string[] = [];
    for (let i = 0; i < 32; i++) ids.push(await openSession(target));
    // Using the oldest session makes the second-oldest the least recently used.
    expect((await listTools(target, ids[0] as string)).status).toBe(200);
    await openSession(target);
    expect((await listTools(target, ids[1] as string)).status).toBe(404);
    expect((await listTools(target, ids[0] as string)).status).toBe(200);
    expect(await target.kill("SIGTERM")).toBe(0);
  }, 120_000);

  /** Retries while the server has not yet seen the released streams end. */
  async function retry(attempt: () => Promise<unknown>, what: string): Promise<void> {
    const until = Date.now() + 15_000;
    for (;;) {
      try {
        await attempt();
        return;
      } catch (error) {
        if (Date.now() > until) throw new Error(`${what}: ${error}`);
        await Bun.sleep(50);
      }
    }
  }
});

describe("startup and shutdown", () => {
  test("without --http-token-file a token is generated, printed once, and works", async () => {
    const generated = await startHttpServer([]);
    expect(generated.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const client = await connect(generated);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
    expect(generated.stderr().split(generated.token).length).toBe(2);
    expect(await generated.kill("SIGTERM")).toBe(0);
  });

  test.each([["SIGTERM" as const], ["SIGINT" as const]])(
    "%s stops accepting, kills running calls' process trees and exits 0",
    async (signal) => {
      const target = await startHttpServer(["--allow-exec", "--http-token-file", tokenFile]);
      const client = await connect(target);
      const pidFile = join(fixture.root, `http-${signal}-pids`);
      const pending = treeCall(client, pidFile);
      await waitFor(() => pidsIn(pidFile).length === 2, 15_000, "tree started");
      expect(await target.kill(signal)).toBe(0);
      await expectTreeGone(pidFile);
      // The call was answered before the session closed: no client is left waiting.
      const result = (await withDeadline(pending, 15_000, "answer")) as CallToolResult;
      expect((result.structuredContent as { cancelled: boolean }).cancelled).toBe(true);
      const refused = await fetch(target.url, { method: "POST" }).catch((e: Error) => e);
      expect(refused).toBeInstanceOf(Error);
    },
    120_000,
  );

  test("over stdio too, SIGTERM kills running calls' process trees and exits 0", async () => {
    const { command, args } = serverCommand();
    const transport = new StdioClientTransport({
      command,
      args: [...args, "--conda", fixture.condaExe, "--no-cache", "--allow-exec"],
      env: fixture.env,
      stderr: "ignore",
    });
    const client = new Client({ name: "conda-mcp-http-tests", version: "0.0.0" });
    await withDeadline(client.connect(transport), 30_000, "connect over stdio");
    const pid = transport.pid;
    if (pid === null) throw new Error("no server pid");
    const pidFile = join(fixture.root, "stdio-sigterm-pids");
    const pending = treeCall(client, pidFile);
    await waitFor(() => pidsIn(pidFile).length === 2, 15_000, "tree started");
    process.kill(pid, "SIGTERM");
    await expectTreeGone(pidFile);
    const result = (await withDeadline(pending, 15_000, "answer")) as CallToolResult;
    expect((result.structuredContent as { cancelled: boolean }).cancelled).toBe(true);
    await waitFor(() => !alive(pid), 15_000, "server exit");
    await client.close();
  }, 120_000);
});
