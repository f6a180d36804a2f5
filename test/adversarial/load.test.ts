import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isGone, waitUntil } from "../execute/process-test-helpers.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { type RunningServer, startServer, withDeadline } from "../support/start-server.ts";

const CALLS = 40;
// The SDK's own request timeout (60 s) must not end calls that wait their turn in the queue.
const REQUEST_OPTIONS = { timeout: 240_000 };

let fixture: FixtureConda;
let server: RunningServer;

beforeAll(async () => {
  fixture = await makeFixtureConda();
  server = await startServer({
    conda: fixture.condaExe,
    args: ["--allow-exec", "--timeout", "120"],
    env: fixture.env,
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await fixture?.cleanup();
});

type Structured = {
  exit_code: number | null;
  stdout: string;
  cancelled: boolean;
  parsed_json: unknown;
};

/** A shell script that logs its start and end, records its pids, and prints its id. */
function loggedScript(dir: string, id: number, sleep: string): string {
  const log = join(dir, "log");
  const pids = join(dir, `${id}.pids`);
  return [
    `echo "start ${id}" >> '${log}'`,
    `echo $$ >> '${pids}'`,
    `sleep ${sleep} & echo $! >> '${pids}'`,
    "wait",
    `echo "end ${id}" >> '${log}'`,
    `echo "done-${id}"`,
  ].join("; ");
}

function runScript(script: string, signal?: AbortSignal): Promise<CallToolResult> {
  return server.client.callTool(
    {
      name: "conda_run",
      arguments: { no_capture_output: true, executable_call: ["sh", "-c", script] },
    },
    undefined,
    { ...REQUEST_OPTIONS, signal },
  ) as Promise<CallToolResult>;
}

function pidsOf(dir: string, id: number): number[] {
  const file = join(dir, `${id}.pids`);
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split(/\s+/).filter(Boolean).map(Number);
}

/** The log's events as [kind, id] pairs, in the order they were written. */
function events(dir: string): [string, number][] {
  return readFileSync(join(dir, "log"), "utf8")
    .trim()
    .split("\n")
    .map((line) => {
      const [kind = "", id = ""] = line.split(" ");
      return [kind, Number(id)];
    });
}

/** Problems with a log of serialized executions: a start before the previous end, or a stray end. */
function overlaps(log: [string, number][]): string[] {
  const problems: string[] = [];
  let running: number | null = null;
  for (const [kind, id] of log) {
    if (kind === "start") {
      if (running !== null) problems.push(`${id} started while ${running} ran`);
      running = id;
    } else {
      if (running !== id) problems.push(`end of ${id} while ${running} ran`);
      running = null;
    }
  }
  return problems;
}

describe("many concurrent calls through one client", () => {
  test("40 conda_info calls at once are all answered, each with conda's own output", async () => {
    const results = (await withDeadline(
      Promise.all(
        Array.from(
          { length: CALLS },
          () =>
            server.client.callTool(
              { name: "conda_info", arguments: { json: true } },
              undefined,
              REQUEST_OPTIONS,
            ) as Promise<CallToolResult>,
        ),
      ),
      240_000,
      "40 conda_info calls",
    )) as CallToolResult[];
    expect(results.length).toBe(CALLS);
    for (const result of results) {
      const out = result.structuredContent as Structured;
      expect(out.exit_code).toBe(0);
      expect((out.parsed_json as { conda_version: string }).conda_version).toBe("26.7.0");
    }
  }, 300_000);

  test("40 executions at once never overlap and each answer is its own", async () => {
    const dir = join(fixture.root, "serial");
    mkdirSync(dir);
    const results = await withDeadline(
      Promise.all(
        Array.from({ length: CALLS }, (_, id) => runScript(loggedScript(dir, id, "0.01"))),
      ),
      240_000,
      "40 conda_run calls",
    );
    for (const [id, result] of results.entries()) {
      const out = result.structuredContent as Structured;
      expect(out.exit_code).toBe(0);
      expect(out.stdout.trim()).toBe(`done-${id}`);
    }
    const log = events(dir);
    expect(log.length).toBe(2 * CALLS);
    expect(overlaps(log)).toEqual([]);
    // Calls run in arrival order.
    expect(log.filter(([kind]) => kind === "start").map(([, id]) => id)).toEqual(
      Array.from({ length: CALLS }, (_, id) => id),
    );
  }, 300_000);

  test("cancelling half of 40 calls leaves no process behind and the rest complete", async () => {
    const dir = join(fixture.root, "cancel");
    mkdirSync(dir);
    const controllers = Array.from({ length: CALLS }, () => new AbortController());
    // Call 0 blocks the queue until it is cancelled; the others are short.
    const calls = controllers.map((controller, id) =>
      runScript(loggedScript(dir, id, id === 0 ? "1000" : "0.01"), controller.signal).then(
        (result) => ({ result, error: null }),
        (error: unknown) => ({ result: null, error }),
      ),
    );
    await waitUntil(() => pidsOf(dir, 0).length === 2, 30_000, "call 0 running");
    const cancelled = Array.from({ length: CALLS }, (_, id) => id).filter((id) => id % 2 === 0);
    // First the waiting ones: a ping answered after the cancellations proves the server read them
    // while call 0 still held the queue.
    for (const id of cancelled) if (id !== 0) controllers[id]?.abort();
    await withDeadline(server.client.ping(), 30_000, "ping after cancellations");
    controllers[0]?.abort();
    const outcomes = await withDeadline(Promise.all(calls), 240_000, "the remaining calls");

    for (const [id, outcome] of outcomes.entries()) {
      if (id % 2 === 0) {
        expect(outcome.error).toBeInstanceOf(Error);
        // A call cancelled while it waited never started.
        if (id !== 0) expect(pidsOf(dir, id)).toEqual([]);
      } else {
        expect(outcome.error).toBeNull();
        const out = outcome.result?.structuredContent as Structured;
        expect(out.exit_code).toBe(0);
        expect(out.stdout.trim()).toBe(`done-${id}`);
      }
    }
    const pids = Array.from({ length: CALLS }, (_, id) => pidsOf(dir, id)).flat();
    expect(pids.length).toBe(2 * (CALLS / 2 + 1));
    await waitUntil(() => pids.every(isGone), 15_000, "every process of every call gone");
    const log = events(dir);
    expect(overlaps(log.filter(([kind, id]) => !(kind === "start" && id === 0)))).toEqual([]);
    expect(log[0]).toEqual(["start", 0]);
    expect(log.some(([kind, id]) => kind === "end" && id === 0)).toBe(false);

    const after = (await server.client.callTool({
      name: "conda_info",
      arguments: { json: true },
    })) as CallToolResult;
    expect((after.structuredContent as Structured).exit_code).toBe(0);
  }, 300_000);
});
