import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isGroupAlive } from "../../src/execute/run-process.ts";
import {
  isGone,
  killAll,
  printedPids,
  spawnTreeScript,
  waitUntil,
} from "../execute/process-test-helpers.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { initializeLine, type RawServer, spawnRawServer } from "../support/spawn-raw-server.ts";
import { type RunningServer, startServer, withDeadline } from "../support/start-server.ts";

const ROUNDS = 5;
// depth 2, width 2: 2 + 4 nodes, plus the parent of the SIGTERM-ignoring grandchild and it.
const TREE_SIZE = 8;

let fixture: FixtureConda;
let server: RunningServer;
const everyPid: number[] = [];
let departures = 0;

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
  // Only a failing test leaves anything here; never let it outlive the run.
  killAll(everyPid);
  await fixture?.cleanup();
});

type Structured = {
  exit_code: number | null;
  timed_out: boolean;
  cancelled: boolean;
};

/**
 * A round's folder and the shell line that records conda run's process group, then becomes
 * spawn-tree with its pids in `pids` and its "ready" in `ready`.
 */
function round(kind: string, n: number): { dir: string; script: string } {
  const dir = join(fixture.root, `${kind}-${n}`);
  mkdirSync(dir);
  return { dir, script: spawnTreeScript(dir) };
}

function read(dir: string, name: string): string {
  const file = join(dir, name);
  return existsSync(file) ? readFileSync(file, "utf8") : "";
}

/** Every pid the tree printed and its process group are gone (zombies count as gone). */
async function expectNoSurvivor(dir: string): Promise<void> {
  const pids = printedPids(read(dir, "pids"), "pid");
  everyPid.push(...pids);
  expect(pids.length).toBeGreaterThan(0);
  const pgid = Number(read(dir, "pgid").trim());
  expect(pgid).toBeGreaterThan(1);
  await waitUntil(
    () => pids.every(isGone) && !isGroupAlive(pgid, process.platform),
    15_000,
    `no survivor of ${dir}`,
  );
}

describe("process trees under repeated timeouts and cancellations", () => {
  test("five timeouts of conda run with a SIGTERM-ignoring grandchild leave no survivor", async () => {
    for (let n = 0; n < ROUNDS; n++) {
      const { dir, script } = round("timeout", n);
      const result = (await withDeadline(
        server.client.callTool({
          name: "conda_execute",
          arguments: {
            argv: ["run", "--no-capture-output", "sh", "-c", script],
            timeout_seconds: 2,
          },
        }),
        60_000,
        `timeout round ${n}`,
      )) as CallToolResult;
      const out = result.structuredContent as Structured;
      expect(out.timed_out).toBe(true);
      expect(out.exit_code).toBeNull();
      expect(result.isError).toBe(true);
      await expectNoSurvivor(dir);
    }
  }, 180_000);

  test("five cancellations of a running tree leave no survivor and the server keeps serving", async () => {
    for (let n = 0; n < ROUNDS; n++) {
      const { dir, script } = round("cancel", n);
      const controller = new AbortController();
      const pending = server.client
        .callTool(
          {
            name: "conda_run",
            arguments: { no_capture_output: true, executable_call: ["sh", "-c", script] },
          },
          undefined,
          { signal: controller.signal },
        )
        .then(
          () => null,
          (error: unknown) => error,
        );
      // Cancel only once the whole tree, the stubborn grandchild included, is up.
      await waitUntil(() => read(dir, "ready").includes("ready"), 30_000, `tree ${n} ready`);
      expect(printedPids(read(dir, "pids"), "pid").length).toBe(TREE_SIZE);
      controller.abort();
      expect(await withDeadline(pending, 30_000, `cancelled round ${n}`)).toBeInstanceOf(Error);
      await expectNoSurvivor(dir);
      const info = (await withDeadline(
        server.client.callTool({ name: "conda_info", arguments: { json: true } }),
        30_000,
        "conda_info after a cancel",
      )) as CallToolResult;
      expect((info.structuredContent as Structured).exit_code).toBe(0);
    }
  }, 180_000);

  test("a timeout and a cancel in a row on the queue both end their trees", async () => {
    const first = round("mixed-timeout", 0);
    const second = round("mixed-cancel", 0);
    const controller = new AbortController();
    const timedOut = server.client.callTool({
      name: "conda_execute",
      arguments: {
        argv: ["run", "--no-capture-output", "sh", "-c", first.script],
        timeout_seconds: 2,
      },
    }) as Promise<CallToolResult>;
    const cancelled = server.client
      .callTool(
        {
          name: "conda_run",
          arguments: { no_capture_output: true, executable_call: ["sh", "-c", second.script] },
        },
        undefined,
        { signal: controller.signal },
      )
      .then(
        () => null,
        (error: unknown) => error,
      );
    await waitUntil(() => read(second.dir, "ready").includes("ready"), 60_000, "second tree ready");
    controller.abort();
    const [result, error] = await withDeadline(
      Promise.all([timedOut, cancelled]),
      60_000,
      "both calls",
    );
    expect((result.structuredContent as Structured).timed_out).toBe(true);
    expect(error).toBeInstanceOf(Error);
    await expectNoSurvivor(first.dir);
    await expectNoSurvivor(second.dir);
  }, 120_000);
});

describe("process trees when the client goes away", () => {
  test.each([
    ["closing the server's stdin", (raw: RawServer) => raw.close()],
    ["SIGTERM to the server", (raw: RawServer) => raw.kill("SIGTERM")],
  ])(
    "%s during a call ends the tree, stubborn grandchild included",
    async (_what, leave) => {
      const raw = spawnRawServer({
        conda: fixture.condaExe,
        args: ["--allow-exec"],
        env: fixture.env,
      });
      try {
        const { dir, script } = round("gone", ++departures);
        await raw.write(initializeLine(1));
        await raw.waitFor("initialize result", (m) => m.id === 1);
        await raw.write(
          `${JSON.stringify({
            jsonrpc: "2.0",
            id: 2,
            method: "tools/call",
            params: {
              name: "conda_run",
              arguments: { no_capture_output: true, executable_call: ["sh", "-c", script] },
            },
          })}\n`,
        );
        await waitUntil(() => read(dir, "ready").includes("ready"), 30_000, "tree ready");
        await leave(raw);
        await expectNoSurvivor(dir);
        expect(await raw.close()).toBe(0);
      } finally {
        await raw.close().catch(() => {});
      }
    },
    60_000,
  );
});
