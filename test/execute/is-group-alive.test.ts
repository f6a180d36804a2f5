import { expect, test } from "bun:test";
import { isGroupAlive } from "../../src/execute/is-group-alive.ts";
import { deadline, fixture, waitUntil } from "./process-test-helpers.ts";

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
