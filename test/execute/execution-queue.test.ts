import { describe, expect, test } from "bun:test";
import { ExecutionQueue } from "../../src/execute/execution-queue.ts";
import { runProcess } from "../../src/execute/run-process.ts";
import type { ExecutionResult } from "../../src/result/execution-result.ts";
import { deadline, fixture, testEnv } from "./process-test-helpers.ts";

const OPTIONS = { platform: process.platform, timeoutMs: 60_000, maxOutputBytes: 1 << 20 };

function runFixture(name: string, argv: string[], signal: AbortSignal): Promise<ExecutionResult> {
  return runProcess({ command: fixture(name), argv, env: testEnv() }, { ...OPTIONS, signal });
}

describe("ExecutionQueue", () => {
  test("runs tasks one at a time in arrival order", async () => {
    const queue = new ExecutionQueue();
    const events: string[] = [];
    const runs = [0, 1, 2, 3, 4].map((index) =>
      queue.run(undefined, async (signal) => {
        events.push(`start ${index}`);
        const result = await runFixture("exit", [String(index)], signal);
        events.push(`end ${index}`);
        return result;
      }),
    );
    const results = await deadline(Promise.all(runs), 30_000, "five queued runs");
    expect(results.map((result) => result.exit_code)).toEqual([0, 1, 2, 3, 4]);
    expect(events).toEqual([0, 1, 2, 3, 4].flatMap((index) => [`start ${index}`, `end ${index}`]));
  });

  test("a task cancelled while queued never starts, and the queue goes on", async () => {
    const queue = new ExecutionQueue();
    const first = new AbortController();
    const second = new AbortController();
    const started: string[] = [];
    const running = queue.run(first.signal, (signal) => {
      started.push("forever");
      return runFixture("forever", [], signal);
    });
    const queued = queue.run(second.signal, (signal) => {
      started.push("queued");
      return runFixture("exit", ["0"], signal);
    });
    const after = queue.run(undefined, (signal) => {
      started.push("after");
      return runFixture("exit", ["7"], signal);
    });
    second.abort();
    const cancelled = await deadline(queued, 5000, "the cancelled queued task");
    expect(cancelled).toMatchObject({ exit_code: null, cancelled: true, duration_ms: 0 });
    // Still running: the cancelled task resolved without waiting for its turn.
    expect(started).toEqual(["forever"]);
    first.abort();
    expect((await deadline(running, 30_000, "the cancelled running task")).cancelled).toBe(true);
    expect((await deadline(after, 30_000, "the task after")).exit_code).toBe(7);
    expect(started).toEqual(["forever", "after"]);
  });

  test("an already aborted signal resolves as cancelled without running the task", async () => {
    const queue = new ExecutionQueue();
    let ran = false;
    const result = await queue.run(AbortSignal.abort(), async (signal) => {
      ran = true;
      return runFixture("exit", ["0"], signal);
    });
    expect(result.cancelled).toBe(true);
    expect(ran).toBe(false);
  });

  test("failing tasks, thrown or rejected, do not stall the queue", async () => {
    const queue = new ExecutionQueue();
    const thrown = queue.run(undefined, () => {
      throw new Error("sync failure");
    });
    const rejected = queue.run(undefined, async () => {
      throw new Error("async failure");
    });
    const next = queue.run(undefined, (signal) => runFixture("exit", ["5"], signal));
    const [a, b, c] = await deadline(
      Promise.allSettled([thrown, rejected, next]),
      30_000,
      "failing tasks and the one after",
    );
    expect(a.status === "rejected" && a.reason.message).toBe("sync failure");
    expect(b.status === "rejected" && b.reason.message).toBe("async failure");
    expect(c.status === "fulfilled" && c.value.exit_code).toBe(5);
  });

  test("a task receives the signal it was queued with", async () => {
    const queue = new ExecutionQueue();
    const controller = new AbortController();
    let received: AbortSignal | undefined;
    await queue.run(controller.signal, (signal) => {
      received = signal;
      return runFixture("exit", ["0"], signal);
    });
    expect(received).toBe(controller.signal);
  });
});
