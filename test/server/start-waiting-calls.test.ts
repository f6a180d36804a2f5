import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult, ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import { parseConfig } from "../../src/config.ts";
import { discoverCatalog } from "../../src/discover-catalog.ts";
import type { CallContext } from "../../src/server/call-tool.ts";
import type { ExecutionEvent } from "../../src/server/create-run-conda.ts";
import { type PreparedServer, prepareServer } from "../../src/server/prepare-server.ts";
import { startWaitingCalls } from "../../src/server/start-waiting-calls.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { withDeadline } from "../support/start-server.ts";

let fixture: FixtureConda;
let prepared: PreparedServer;
const executions: ExecutionEvent[] = [];

beforeAll(async () => {
  fixture = await makeFixtureConda();
  const config = parseConfig(
    ["--conda", fixture.condaExe, "--allow-exec", "--no-cache", "--progress-interval", "0.1"],
    { env: fixture.env, platform: process.platform, home: fixture.home, cwd: fixture.root },
  );
  const { discovery, catalog } = await discoverCatalog(config, () => {});
  prepared = prepareServer(
    { config, conda: discovery, catalog, version: "0", log: () => {}, handshakeSource: "snapshot" },
    { onExecution: (event) => executions.push(event) },
  );
});

afterAll(async () => {
  prepared.shutdown.abort();
  await prepared.settled();
  await fixture?.cleanup();
});

const line = (message: unknown) => ({ text: JSON.stringify(message) });
const call = (id: unknown, name: string, args?: unknown, params: object = {}) =>
  line({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, ...params } });

/** A context as the SDK's handler gives it, recording the notifications sent through it. */
function handlerContext(): CallContext & { sent: ServerNotification[]; abort(): void } {
  const controller = new AbortController();
  const sent: ServerNotification[] = [];
  return {
    signal: controller.signal,
    _meta: {},
    sendNotification: async (notification) => {
      sent.push(notification);
    },
    sent,
    abort: () => controller.abort(),
  };
}

/** Resolves once the fixture conda has been run `count` times in all. */
async function executionsReach(count: number): Promise<void> {
  await withDeadline(
    (async () => {
      while (executions.length < count) await Bun.sleep(10);
    })(),
    20_000,
    `${count} executions`,
  );
}

const structured = (result: CallToolResult) =>
  result.structuredContent as { exit_code: number | null; cancelled: boolean; stdout: string };

describe("calls that waited behind a warm start", () => {
  test("a waiting call runs before any handler claims it, and its one claim gets the result", async () => {
    const before = executions.length;
    const waiting = startWaitingCalls(prepared.deps, [call(7, "conda_info", { json: true })]);
    expect(waiting).not.toBeNull();
    // conda ran to its end with nobody asking for the result yet.
    await executionsReach(before + 1);
    expect(executions[before]?.argv).toEqual(["info", "--json"]);
    const context = handlerContext();
    expect(waiting?.claim(7, "conda_other", context)).toBeNull();
    const result = (await waiting?.claim(7, "conda_info", context)) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(structured(result).exit_code).toBe(0);
    expect(JSON.parse(structured(result).stdout).conda_version).toBe("26.7.0");
    // Taken once: the same id later is a new request, for the handler to run itself.
    expect(waiting?.claim(7, "conda_info", context)).toBeNull();
    expect(executions.length).toBe(before + 1);
  });

  test("invalid arguments are answered by the run as the handler would answer them", async () => {
    const waiting = startWaitingCalls(prepared.deps, [call("a", "conda_info", { json: "yes" })]);
    const result = (await waiting?.claim("a", "conda_info", handlerContext())) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toStartWith(
      "Invalid arguments for conda_info:\n- /json: expected a boolean",
    );
  });

  test("nothing starts for what only the SDK should answer", async () => {
    const before = executions.length;
    const unusual = [
      call(1, "conda_nope", {}),
      call(2, "conda_info", {}, { task: { ttl: 1000 } }),
      call(3, "conda_info", {}, { _meta: { progressToken: 1.5 } }),
      call(4, "conda_info", ["json"]),
      call(5, "conda_info", {}, { _meta: { progressToken: 1, other: true } }),
      line({ jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: 6 } }),
      line({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "conda_info" }, x: 1 }),
      // The same id twice, and a call whose cancellation already waits behind it.
      call(8, "conda_info", {}),
      call(8, "conda_info", {}),
      call(9, "conda_info", {}),
      line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 9 } }),
      { text: "{ not json" },
      { oversized: true as const },
    ];
    expect(startWaitingCalls(prepared.deps, unusual)).toBeNull();
    await Bun.sleep(200);
    expect(executions.length).toBe(before);
  });

  test("progress waits for the claim, and the claiming request's cancellation kills the run", async () => {
    const marker = join(fixture.root, "early-marker");
    const script = `echo started > '${marker}'; exec sleep 30`;
    const waiting = startWaitingCalls(prepared.deps, [
      call(
        "p",
        "conda_run",
        { no_capture_output: true, executable_call: ["sh", "-c", script] },
        { _meta: { progressToken: "tok" } },
      ),
    ]);
    await withDeadline(
      (async () => {
        while (!existsSync(marker)) await Bun.sleep(10);
      })(),
      20_000,
      "the early run's start",
    );
    expect(readFileSync(marker, "utf8")).toBe("started\n");
    // Heartbeats every 0.1 s are held while nobody has claimed the run.
    await Bun.sleep(350);
    const context = handlerContext();
    const result = waiting?.claim("p", "conda_run", context) as Promise<CallToolResult>;
    expect(context.sent.length).toBeGreaterThan(0);
    const tokens = context.sent.map((n) => (n.params as { progressToken?: unknown }).progressToken);
    expect(new Set(tokens)).toEqual(new Set(["tok"]));
    context.abort();
    const ended = await withDeadline(result, 20_000, "the cancelled run");
    expect(structured(ended).cancelled).toBe(true);
  });
});
