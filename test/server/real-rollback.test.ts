import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ExecutionResult } from "../../src/result/execution-result.ts";
import {
  describeRealConda,
  makeRealCondaSandbox,
  type RealCondaSandbox,
} from "../support/real-conda.ts";
import { type RunningServer, startServer } from "../support/start-server.ts";

// conda treats SIGTERM like Ctrl-C and rolls its transaction back; a SIGKILL during that rollback
// leaves a broken environment. Each test interrupts a real transaction of the sandbox channel's
// slow packages (tinybulk: 20,000 files; tinyslow: a post-link script that sleeps) at one phase,
// by cancelling the request or by the call's timeout, and then checks the environment on disk:
// it is as before or fully changed, its conda-meta records match its files, and conda list works.

let sandbox: RealCondaSandbox;
let server: RunningServer;
const solve = () => ["-c", sandbox.channel, "--override-channels", "-y"];

describeRealConda("interrupted conda transactions", () => {
  beforeAll(async () => {
    sandbox = await makeRealCondaSandbox({ rollbackPackages: true });
    server = await startServer({
      conda: sandbox.condaExe,
      env: sandbox.env,
      args: ["--allow-exec", "--allow-destructive"],
    });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await sandbox?.cleanup();
  });

  const env = (name: string) => join(sandbox.envsDir, name);

  async function execute(
    argv: string[],
    options: { timeoutSeconds?: number; signal?: AbortSignal } = {},
  ) {
    const result = (await server.client.callTool(
      {
        name: "conda_execute",
        arguments: {
          argv,
          ...(options.timeoutSeconds ? { timeout_seconds: options.timeoutSeconds } : {}),
        },
      },
      undefined,
      { timeout: 600_000, signal: options.signal },
    )) as CallToolResult;
    return result.structuredContent as unknown as ExecutionResult;
  }

  async function countFiles(dir: string): Promise<number> {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
    return entries.filter((e) => e.isFile()).length;
  }

  /** Every recorded file exists, every package file is recorded, no rename leftovers, and conda list works. */
  async function checkConsistent(prefix: string): Promise<string[]> {
    if (!existsSync(join(prefix, "conda-meta", "history"))) {
      // A new environment rolled back: whatever folder is left holds nothing of a package.
      expect(await countFiles(join(prefix, "share"))).toBe(0);
      return [];
    }
    const meta = join(prefix, "conda-meta");
    const recorded = new Set<string>();
    const packages: string[] = [];
    for (const name of (await readdir(meta).catch(() => [])).filter((n) => n.endsWith(".json"))) {
      const record = JSON.parse(await readFile(join(meta, name), "utf8"));
      packages.push(`${record.name}-${record.version}`);
      for (const file of record.files as string[]) recorded.add(file);
    }
    for (const file of recorded)
      expect([file, existsSync(join(prefix, file))]).toEqual([file, true]);
    const bulk = packages.find((p) => p.startsWith("tinybulk-"));
    for (const sample of bulk ? ["d00/f00000.c", "d19/f19999.c"] : []) {
      // The files on disk are the recorded version's, not a mix of the old and the new.
      const content = await readFile(join(prefix, "share", "tinybulk", sample), "utf8");
      expect(content).toContain(bulk?.slice("tinybulk-".length) ?? "");
    }
    const share = await readdir(join(prefix, "share"), {
      recursive: true,
      withFileTypes: true,
    }).catch(() => []);
    for (const entry of share.filter((e) => e.isFile())) {
      const file = join(entry.parentPath, entry.name).slice(prefix.length + 1);
      // conda's trash: a file it moved aside and had not deleted yet when the signal came (after
      // a transaction was complete); conda deletes these itself at its next install there.
      if (file.endsWith(".c~")) continue;
      if (file !== "share/tinyslow/started")
        expect([file, recorded.has(file)]).toEqual([file, true]);
    }
    const listed = await execute(["list", "-p", prefix, "--json"]);
    expect(listed.exit_code).toBe(0);
    return packages.sort();
  }

  /** Cancels the call once `reached()` holds; returns how long that took (ms). */
  async function cancelWhen(argv: string[], reached: () => Promise<boolean>): Promise<number> {
    const controller = new AbortController();
    const started = performance.now();
    const call = execute(argv, { signal: controller.signal }).catch(() => null);
    const deadline = started + 120_000;
    while (!(await reached())) {
      if (performance.now() > deadline) throw new Error(`phase of ${argv.join(" ")} never reached`);
      await Bun.sleep(20);
    }
    const elapsed = performance.now() - started;
    controller.abort();
    await call;
    // Calls run one at a time: this one starts only when the cancelled conda has ended.
    await execute(["info", "--json"]);
    expect(server.stderr()).toContain("conda is rolling its transaction back");
    expect(server.stderr()).not.toContain("was killed before conda finished rolling back");
    return elapsed;
  }

  async function timeOutAt(argv: string[], ms: number): Promise<void> {
    // The fact-finder's run comes before the timeout starts; take it off the measured delay.
    const result = await execute(argv, { timeoutSeconds: Math.max(ms - 400, 200) / 1000 });
    if (result.exit_code === 0) return; // finished before the deadline: nothing was interrupted
    expect(result).toMatchObject({ timed_out: true, killed: false });
  }

  async function dropCached(name: string): Promise<void> {
    for (const entry of await readdir(sandbox.pkgsDir)) {
      if (entry.startsWith(name))
        await rm(join(sandbox.pkgsDir, entry), { recursive: true, force: true });
    }
  }

  const extracted = () => countFiles(join(sandbox.pkgsDir, "tinybulk-1.0-0", "share"));

  test("during extraction", async () => {
    const ms = await cancelWhen(
      ["create", "-n", "x1", ...solve(), "tinybulk=1.0"],
      async () => (await extracted()) > 2000,
    );
    expect(await checkConsistent(env("x1"))).toBeOneOf([[], ["tinybulk-1.0"]]);
    // conda's own leftover that no signal avoids: a half-extracted package (README, troubleshooting).
    await dropCached("tinybulk-1.0");
    await timeOutAt(["create", "-n", "x2", ...solve(), "tinybulk=1.0"], ms);
    expect(await checkConsistent(env("x2"))).toBeOneOf([[], ["tinybulk-1.0"]]);
    await dropCached("tinybulk-1.0");
  }, 300_000);

  test("during linking", async () => {
    expect((await execute(["create", "-n", "full", ...solve(), "tinybulk=1.0"])).exit_code).toBe(0);
    const linked = (name: string) => async () =>
      (await countFiles(join(env(name), "share"))) > 2000;
    const ms = await cancelWhen(["create", "-n", "l1", ...solve(), "tinybulk=1.0"], linked("l1"));
    expect(await checkConsistent(env("l1"))).toBeOneOf([[], ["tinybulk-1.0"]]);
    await timeOutAt(["create", "-n", "l2", ...solve(), "tinybulk=1.0"], ms);
    expect(await checkConsistent(env("l2"))).toBeOneOf([[], ["tinybulk-1.0"]]);
  }, 300_000);

  test("during post-link", async () => {
    const started = (name: string) => async () =>
      existsSync(join(env(name), "share", "tinyslow", "started"));
    const ms = await cancelWhen(["create", "-n", "p1", ...solve(), "tinyslow"], started("p1"));
    expect(await checkConsistent(env("p1"))).toEqual([]);
    await timeOutAt(["create", "-n", "p2", ...solve(), "tinyslow"], ms + 1000);
    expect(await checkConsistent(env("p2"))).toEqual([]);
  }, 300_000);

  test("during unlinking", async () => {
    for (const name of ["u1", "u2"]) {
      expect((await execute(["create", "-n", name, ...solve(), "tinybulk=1.0"])).exit_code).toBe(0);
    }
    // conda moves each file aside (`name.c~`) while it unlinks, and deletes them once done.
    const unlinking = (name: string) => async () =>
      (await readdir(join(env(name), "share", "tinybulk", "d00")).catch(() => [])).some((f) =>
        f.endsWith(".c~"),
      );
    const ms = await cancelWhen(["remove", "-n", "u1", "-y", "tinybulk"], unlinking("u1"));
    expect(await checkConsistent(env("u1"))).toBeOneOf([[], ["tinybulk-1.0"]]);
    await timeOutAt(["remove", "-n", "u2", "-y", "tinybulk"], ms);
    expect(await checkConsistent(env("u2"))).toBeOneOf([[], ["tinybulk-1.0"]]);
  }, 300_000);

  test("during an update", async () => {
    expect((await execute(["create", "-n", "new", ...solve(), "tinybulk=1.1"])).exit_code).toBe(0);
    for (const name of ["v1", "v2"]) {
      expect((await execute(["create", "-n", name, ...solve(), "tinybulk=1.0"])).exit_code).toBe(0);
    }
    const changing = (name: string) => async () => {
      const sample = join(env(name), "share", "tinybulk", "d00", "f00000.c");
      return (
        !existsSync(sample) || (await readFile(sample, "utf8").catch(() => "")).includes("1.1")
      );
    };
    const ms = await cancelWhen(
      ["install", "-n", "v1", ...solve(), "tinybulk=1.1"],
      changing("v1"),
    );
    const after = [["tinybulk-1.0"], ["tinybulk-1.1"]];
    expect(await checkConsistent(env("v1"))).toBeOneOf(after);
    await timeOutAt(["install", "-n", "v2", ...solve(), "tinybulk=1.1"], ms);
    expect(await checkConsistent(env("v2"))).toBeOneOf(after);
  }, 300_000);
});
