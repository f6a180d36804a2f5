import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createLastLineTracker,
  isGroupAlive,
  type RunOptions,
  type RunRequest,
  runProcess,
} from "../../src/execute/run-process.ts";
import type { ExecutionResult } from "../../src/result/execution-result.ts";
import {
  deadline,
  fixture,
  isGone,
  killAll,
  printedPids,
  testEnv,
  waitUntil,
} from "./process-test-helpers.ts";

const MiB = 1024 * 1024;
const BASE: RunOptions = {
  platform: process.platform,
  timeoutMs: 60_000,
  maxOutputBytes: MiB,
  graceMs: 300,
};
// Pids a test leaves running on purpose, killed after it whatever happens.
let leftovers: number[] = [];
afterEach(() => {
  killAll(leftovers);
  leftovers = [];
});

function run(
  name: string,
  argv: string[],
  options: Partial<RunOptions> = {},
  extra: Partial<RunRequest> = {},
): Promise<ExecutionResult> {
  const request = { command: fixture(name), argv, env: testEnv(), ...extra };
  return deadline(runProcess(request, { ...BASE, ...options }), 50_000, `${name} ${argv}`);
}

describe("output", () => {
  test("1 GiB on stdout keeps exactly the cap, drains the rest, and memory stays flat", async () => {
    const cap = 64 * 1024;
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 10);
    const result = await run("flood", [String(1024 * MiB)], { maxOutputBytes: cap }).finally(() =>
      clearInterval(sampler),
    );
    expect(result.exit_code).toBe(0);
    expect(result.stdout_truncated).toBe(true);
    expect(Buffer.byteLength(result.stdout)).toBe(cap);
    expect(result.stderr).toBe("");
    // Keeping the output would cost 1 GiB, and leaving dropped chunks to the collector 50 to
    // 133 MiB; releasing each as it arrives leaves about 14 MiB. It is a memory bound, not a
    // time one.
    expect(peak - baseline).toBeLessThan(32 * MiB);
  });

  test("256 KiB on stderr alone does not deadlock", async () => {
    const result = await run("flood", ["0", String(256 * 1024)]);
    expect(result.exit_code).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr.length).toBe(256 * 1024);
    expect(result.stderr_truncated).toBe(false);
  });

  test("both streams flooding at once are read concurrently and capped each", async () => {
    const result = await run("flood", [String(16 * MiB), String(16 * MiB)], {
      maxOutputBytes: 100_000,
    });
    expect(result.exit_code).toBe(0);
    expect([result.stdout.length, result.stderr.length]).toEqual([100_000, 100_000]);
    expect([result.stdout_truncated, result.stderr_truncated]).toEqual([true, true]);
  });
});

describe("stdin", () => {
  test("stdin is delivered when given", async () => {
    const text = `héllo\n${"z".repeat(256 * 1024)}`;
    const result = await run("read-stdin", [], {}, { stdin: text });
    expect(result.parsed_json).toEqual({ length: Buffer.byteLength(text), text });
  });

  test("without stdin the child reads EOF at once instead of waiting", async () => {
    const result = await run("read-stdin", []);
    expect(result.parsed_json).toEqual({ length: 0, text: "" });
  });

  test("a child that ignores a large stdin still completes", async () => {
    const result = await run("exit", ["0"], {}, { stdin: "y".repeat(4 * MiB) });
    expect(result.exit_code).toBe(0);
  });
});

describe("results", () => {
  test.each([0, 1, 2, 42, 255])("exit code %i passes through with both streams", async (code) => {
    const result = await run("exit", [String(code)]);
    expect(result).toMatchObject({
      exit_code: code,
      stdout: `stdout of exit ${code}\n`,
      stderr: `stderr of exit ${code}\n`,
      timed_out: false,
      cancelled: false,
      restart_required: false,
      killed: false,
    });
  });

  test("argv reaches the program verbatim, with no shell in between", async () => {
    const argv = ["a b", "", "$HOME", "`id`", "; rm -rf /", "'\"", "ü∂✓😀", "*", "a\nb"];
    const result = await run("echo-argv", argv);
    expect(result.parsed_json).toEqual(argv);
  });

  test("NUL-separated JSON records are not parsed but kept", async () => {
    const result = await run("json-records", []);
    expect(result.parsed_json).toBeNull();
    expect(result.stdout.split("\n\0")).toHaveLength(4);
    expect(result.stdout).toContain('{"success": true}');
  });

  test("truncated JSON is not parsed", async () => {
    const result = await run("echo-argv", ["x".repeat(5000)], { maxOutputBytes: 1000 });
    expect(result.stdout_truncated).toBe(true);
    expect(result.parsed_json).toBeNull();
  });

  test("a child killed by a signal it did not get from us has no exit code; the result says why", async () => {
    const result = await run("kill-self", ["TERM"]);
    expect(result).toMatchObject({
      exit_code: null,
      timed_out: false,
      stop_reason: "signal",
      stop_detail: "kill-self was killed by signal SIGTERM",
    });
    // stderr is the child's own, with nothing of the server's written into it.
    expect(result.stderr).toBe("about to die\n");
  });
});

describe("spawn failures are values", () => {
  const dir = mkdtempSync(join(tmpdir(), "conda-mcp-run-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("a missing program", async () => {
    const result = await runProcess(
      { command: join(dir, "no-such-conda"), argv: [], env: {} },
      BASE,
    );
    expect(result).toMatchObject({ exit_code: null, timed_out: false, cancelled: false });
    expect(result).toMatchObject({
      stop_reason: "not_started",
      stop_detail: "could not start no-such-conda: the program was not found (ENOENT)",
    });
    expect(result.stderr).toBe("");
  });

  test("a file without execute permission", async () => {
    const path = join(dir, "not-executable");
    writeFileSync(path, "#!/bin/sh\n");
    chmodSync(path, 0o644);
    const result = await runProcess({ command: path, argv: [], env: {} }, BASE);
    expect(result.exit_code).toBeNull();
    expect(result).toMatchObject({
      stop_reason: "not_started",
      stop_detail: "could not start not-executable: permission denied (EACCES)",
    });
    expect(result.stderr).toBe("");
  });

  test("a missing working directory", async () => {
    const result = await run("exit", ["0"], {}, { cwd: join(tmpdir(), "conda-mcp-no-such-dir") });
    expect(result.exit_code).toBeNull();
    expect(result).toMatchObject({
      stop_reason: "not_started",
      stop_detail: "could not start exit: the working directory does not exist (ENOENT)",
    });
    expect(result.stderr).toBe("");
  });

  test("an argument cmd.exe cannot carry to a Windows .bat is refused before starting", async () => {
    const result = await runProcess(
      { command: "C:\\conda\\condabin\\conda.bat", argv: ["install", "50%"], env: {} },
      { ...BASE, platform: "win32" },
    );
    expect(result.exit_code).toBeNull();
    expect(result.stop_reason).toBe("not_started");
    expect(result.stop_detail).toStartWith("could not start conda.bat: argument 2 contains");
  });
});

describe("timeout and cancellation", () => {
  test("timeout kills the whole process tree, including a child that ignores SIGTERM", async () => {
    const result = await run("spawn-tree", ["2", "2"], { timeoutMs: 4000 });
    const pids = printedPids(result.stdout, "pid");
    leftovers = pids;
    // The tree is complete before the timeout fires on any sane machine; say so if not.
    expect(result.stderr).toBe("ready\n");
    expect(pids).toHaveLength(2 + 4 + 2);
    // A descendant ignored SIGTERM past the grace: the result says it had to be killed.
    expect(result).toMatchObject({
      exit_code: null,
      timed_out: true,
      cancelled: false,
      killed: true,
    });
    await waitUntil(() => pids.every(isGone), 10_000, "every descendant gone");
  });

  test("a tree that ends within the grace after SIGTERM is not reported as killed", async () => {
    const result = await run("forever", [], { timeoutMs: 300, graceMs: 60_000 });
    expect(result).toMatchObject({ timed_out: true, killed: false });
    expect(result.duration_ms).toBeLessThan(30_000);
  });

  test("cancel kills the whole process tree, and heartbeats carry the last stderr line", async () => {
    const controller = new AbortController();
    const lines: (string | null)[] = [];
    const result = await run("spawn-tree", ["1", "3"], {
      signal: controller.signal,
      heartbeatMs: 20,
      onHeartbeat: ({ lastStderrLine }) => {
        lines.push(lastStderrLine);
        if (lastStderrLine === "ready") controller.abort();
      },
    });
    const pids = printedPids(result.stdout, "pid");
    leftovers = pids;
    expect(lines).toContain("ready");
    expect(pids).toHaveLength(3 + 2);
    expect(result).toMatchObject({ exit_code: null, timed_out: false, cancelled: true });
    await waitUntil(() => pids.every(isGone), 10_000, "every descendant gone");
  });

  test("a daemonised grandchild holding the pipes does not hang the call", async () => {
    const controller = new AbortController();
    const result = await run("spawn-tree", ["1", "1", "--escape"], {
      signal: controller.signal,
      heartbeatMs: 20,
      // Far above the test's deadline: only noticing that the group is gone can end the read.
      drainMs: 10 * 60_000,
      onHeartbeat: ({ lastStderrLine }) => {
        if (lastStderrLine === "ready") controller.abort();
      },
    });
    const [escaped] = printedPids(result.stdout, "escaped");
    const pids = printedPids(result.stdout, "pid");
    leftovers = [...pids, ...(escaped === undefined ? [] : [escaped])];
    expect(result.cancelled).toBe(true);
    expect(escaped).toBeNumber();
    // It left the process group, so it outlives us; the call returned while it still holds stdout.
    expect(isGone(escaped ?? 0)).toBe(false);
    await waitUntil(() => pids.every(isGone), 10_000, "every descendant in the group gone");
  });

  test("descendants left behind by a child that exited stop the read after drainMs", async () => {
    const result = await run("spawn-tree", ["1", "1", "--leave"], { drainMs: 300 });
    const pids = printedPids(result.stdout, "pid");
    leftovers = pids;
    expect(result.exit_code).toBe(0);
    expect(result.stderr).toBe("ready\n");
    expect(pids).toHaveLength(1 + 2);
    // Left alone: they were not ours to kill once the program itself exited.
    expect(pids.some(isGone)).toBe(false);
  });

  test("an aborted signal means the program never starts", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await run("exit", ["0"], { signal: controller.signal });
    expect(result).toMatchObject({ exit_code: null, cancelled: true, stdout: "", stderr: "" });
  });

  test("the first stop reason wins: a cancel during the kill grace stays a timeout", async () => {
    const controller = new AbortController();
    // The SIGTERM-ignoring grandchild keeps the group alive for the whole grace period.
    const result = await run("spawn-tree", ["0", "0"], {
      timeoutMs: 2000,
      graceMs: 1000,
      signal: controller.signal,
      heartbeatMs: 20,
      onHeartbeat: ({ elapsedMs }) => {
        if (elapsedMs > 2100) controller.abort();
      },
    });
    leftovers = printedPids(result.stdout, "pid");
    expect(controller.signal.aborted).toBe(true);
    expect(result).toMatchObject({ exit_code: null, timed_out: true, cancelled: false });
  });
});

const encode = (text: string) => new TextEncoder().encode(text);

test.each([
  [[], null],
  [["first\nsecond\n"], "second"],
  [["first\nsec", "ond"], "second"],
  [["Solving: 10%\rSolving: 90%\r"], "Solving: 90%"],
  [["line\n\n  \n"], "line"],
  [["old\n", "x".repeat(5000), "\nnewest line  \n"], "newest line"],
])("the last line of %j is %j", (chunks, expected) => {
  const tracker = createLastLineTracker();
  for (const chunk of chunks) tracker.push(encode(chunk));
  expect(tracker.line()).toBe(expected);
});

test("a very long last line is cut to its end", () => {
  const tracker = createLastLineTracker();
  tracker.push(encode(`${"a".repeat(1000)}END\n`));
  const line = tracker.line() ?? "";
  expect(line.length).toBe(200);
  expect(line.endsWith("END")).toBe(true);
});

test("a process group is alive while a member runs and gone once all are killed", async () => {
  const child = Bun.spawn({
    cmd: [fixture("forever")],
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
    detached: true,
  });
  try {
    expect(isGroupAlive(child.pid, process.platform)).toBe(true);
  } finally {
    process.kill(-child.pid, "SIGKILL");
  }
  await deadline(child.exited, 10_000, "killed forever");
  await waitUntil(() => !isGroupAlive(child.pid, process.platform), 10_000, "group gone");
});

test("Windows has no process groups: the answer is the conservative true", () => {
  expect(isGroupAlive(1, "win32")).toBe(true);
});
