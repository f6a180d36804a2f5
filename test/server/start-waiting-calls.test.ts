import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult, ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import { discoverCatalog } from "../../src/catalog/discover-catalog.ts";
import { parseConfig } from "../../src/config/parse-config.ts";
import type { CallContext } from "../../src/server/call-tool.ts";
import type { ExecutionEvent } from "../../src/server/create-run-conda.ts";
import { type PreparedServer, prepareServer } from "../../src/server/prepare-server.ts";
import { startWaitingCalls } from "../../src/server/start-waiting-calls.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { toolsCall } from "../support/spawn-raw-server.ts";
import { withDeadline } from "../support/start-server.ts";
import { alive, pidsIn, waitFor } from "../support/watch-processes.ts";

let fixture: FixtureConda;
let prepare: () => PreparedServer;
let prepared: PreparedServer;
const executions: ExecutionEvent[] = [];

beforeAll(async () => {
  fixture = await makeFixtureConda();
  const config = parseConfig(
    ["--conda", fixture.condaExe, "--allow-exec", "--no-cache", "--progress-interval", "0.1"],
    { env: fixture.env, platform: process.platform, home: fixture.home, cwd: fixture.root },
  );
  const { discovery, catalog } = await discoverCatalog(config, () => {});
  prepare = () =>
    prepareServer(
      {
        config,
        conda: discovery,
        catalog,
        version: "0",
        log: () => {},
        handshakeSource: "snapshot",
      },
      { onExecution: (event) => executions.push(event) },
    );
  prepared = prepare();
});

afterAll(async () => {
  prepared.shutdown.abort();
  await prepared.settled();
  await fixture?.cleanup();
});

const line = (message: unknown) => ({ text: JSON.stringify(message) });
const call = (id: unknown, name: string, args?: unknown, params: object = {}) =>
  line(toolsCall(id, name, args, params));

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
    const cancel = (id: unknown) =>
      line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
    const unusual = [
      [call(1, "conda_nope", {})],
      [call(2, "conda_info", {}, { task: { ttl: 1000 } })],
      [call(3, "conda_info", {}, { _meta: { progressToken: 1.5 } })],
      [call(4, "conda_info", ["json"])],
      [call(5, "conda_info", {}, { _meta: { progressToken: 1, other: true } })],
      [line({ jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: 6 } })],
      [line({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "conda_info" }, x: 1 })],
      // The same id twice, or shared with another request, and a call whose cancellation waits.
      [call(8, "conda_info", {}), call(8, "conda_info", {})],
      [line({ jsonrpc: "2.0", id: 9, method: "ping" }), call(9, "conda_info", {})],
      [call(10, "conda_info", {}), cancel(10)],
      [{ text: "{ not json" }, { oversized: true as const }],
    ];
    for (const lines of unusual) expect(startWaitingCalls(prepared.deps, lines)).toBeNull();
    await Bun.sleep(200);
    expect(executions.length).toBe(before);
  });

  test("a call that cannot start early holds back every call behind it, so none overtakes it", async () => {
    const held = [call(1, "conda_info", {}, { task: { ttl: 1 } }), call(2, "conda_info", {})];
    expect(startWaitingCalls(prepared.deps, held)).toBeNull();
    // A call of no listed tool never enters the queue, a cancelled one never runs: passed over.
    const cancel = line({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 4 },
    });
    const passed = [
      call(3, "conda_nope", {}),
      call(4, "conda_info", {}),
      cancel,
      call(5, "conda_info", {}),
    ];
    const waiting = startWaitingCalls(prepared.deps, passed);
    const context = handlerContext();
    expect(waiting?.claim(3, "conda_nope", context)).toBeNull();
    expect(waiting?.claim(4, "conda_info", context)).toBeNull();
    const result = (await waiting?.claim(5, "conda_info", context)) as CallToolResult;
    expect(structured(result).exit_code).toBe(0);
  });

  test("a claim whose request is already cancelled ends the run", async () => {
    const script = "exec sleep 30";
    const args = { no_capture_output: true, executable_call: ["sh", "-c", script] };
    const waiting = startWaitingCalls(prepared.deps, [call("c", "conda_run", args)]);
    const context = handlerContext();
    context.abort();
    const result = (await withDeadline(
      waiting?.claim("c", "conda_run", context) as Promise<CallToolResult>,
      20_000,
      "the cancelled run",
    )) as CallToolResult;
    expect(structured(result).cancelled).toBe(true);
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
    // The shell creates the file before echo writes to it: wait for the line itself.
    const started = () => existsSync(marker) && readFileSync(marker, "utf8") === "started\n";
    await withDeadline(
      (async () => {
        while (!started()) await Bun.sleep(10);
      })(),
      20_000,
      "the early run's start",
    );
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

  test("a run nobody claims ends with the server: its process tree is gone", async () => {
    const own = prepare();
    const pidFile = join(fixture.root, "unclaimed.pid");
    const args = {
      no_capture_output: true,
      executable_call: ["sh", "-c", `echo $$ > '${pidFile}'; exec sleep 30`],
    };
    expect(startWaitingCalls(own.deps, [call("u", "conda_run", args)])).not.toBeNull();
    await waitFor(() => pidsIn(pidFile).length === 1, 20_000, "the unclaimed run's start");
    const [pid] = pidsIn(pidFile) as [number];
    expect(alive(pid)).toBe(true);
    own.shutdown.abort();
    await withDeadline(own.settled(), 20_000, "the shutdown");
    await waitFor(() => !alive(pid), 10_000, "the unclaimed run's process gone");
  });
});
