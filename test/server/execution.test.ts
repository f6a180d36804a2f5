import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { type RunningServer, startServer, withDeadline } from "../support/start-server.ts";
import { alive, pidsIn, waitFor } from "../support/watch-processes.ts";

const BIN = join(import.meta.dir, "..", "fixtures", "bin");

let fixture: FixtureConda;
let server: RunningServer;

beforeAll(async () => {
  fixture = await makeFixtureConda();
  server = await startServer({
    conda: fixture.condaExe,
    args: [
      "--allow-exec",
      "--allow-destructive",
      "--timeout",
      "3",
      "--max-output-bytes",
      "65536",
      "--progress-interval",
      "0.2",
    ],
    env: fixture.env,
  });
});

afterAll(async () => {
  await server?.close();
  fixture?.cleanup();
});

type Structured = {
  exit_code: number | null;
  stdout: string;
  stderr: string;
  timed_out: boolean;
  cancelled: boolean;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
  parsed_json: unknown;
  restart_required: boolean;
};

async function run(
  argv: string[],
  extra: Record<string, unknown> = {},
): Promise<{ result: CallToolResult; out: Structured }> {
  const result = (await withDeadline(
    server.client.callTool({
      name: "conda_run",
      arguments: { no_capture_output: true, executable_call: argv, ...extra },
    }),
    30_000,
    "conda_run",
  )) as CallToolResult;
  return { result, out: result.structuredContent as Structured };
}

describe("execution through MCP", () => {
  test("without conda-completion installed, conda_cli_command is not listed; with --allow-exec, conda_execute is", async () => {
    const names = (await server.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain("conda_cli_command");
    expect(names).toContain("conda_execute");
  });

  test("exit codes pass through and a nonzero exit sets isError", async () => {
    const { result, out } = await run([join(BIN, "exit"), "3"]);
    expect(out.exit_code).toBe(3);
    expect(result.isError).toBe(true);
  });

  test("a flood on stdout is capped, drained and reported as truncated", async () => {
    const { out } = await run([join(BIN, "flood"), String(64 * 1024 * 1024), String(256 * 1024)]);
    expect(out.exit_code).toBe(0);
    expect(out.stdout_truncated).toBe(true);
    expect(out.stderr_truncated).toBe(true);
    expect(Buffer.byteLength(out.stdout)).toBe(65536);
    expect(out.parsed_json).toBeNull();
  });

  test("256 KiB on stderr with nothing on stdout does not block the child", async () => {
    const { out } = await run([join(BIN, "flood"), "0", String(256 * 1024)]);
    expect(out.exit_code).toBe(0);
    expect(out.stdout).toBe("");
    expect(out.stderr_truncated).toBe(true);
    expect(Buffer.byteLength(out.stderr)).toBe(65536);
  });

  test("NUL-separated JSON records keep stdout and leave parsed_json null", async () => {
    const { out } = await run([join(BIN, "json-records"), "3"]);
    expect(out.stdout).toContain("\0");
    expect(out.parsed_json).toBeNull();
  });

  test("a timeout kills the whole process tree and reports exit_code null", async () => {
    const pidFile = join(fixture.root, "timeout-pids");
    const { result, out } = await run([
      "sh",
      "-c",
      `echo $$ >> ${pidFile}; sleep 1000 & echo $! >> ${pidFile}; wait`,
    ]);
    expect(out.timed_out).toBe(true);
    expect(out.exit_code).toBeNull();
    expect(result.isError).toBe(true);
    const pids = pidsIn(pidFile);
    expect(pids.length).toBe(2);
    await waitFor(() => pids.every((pid) => !alive(pid)), 10_000, "every descendant gone");
  });

  test("conda_execute's timeout_seconds may only shorten the server's limit", async () => {
    const refused = (await server.client.callTool({
      name: "conda_execute",
      arguments: { argv: ["--version"], timeout_seconds: 99 },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("/timeout_seconds");
    const started = Date.now();
    const short = (await server.client.callTool({
      name: "conda_execute",
      arguments: {
        argv: ["run", "--no-capture-output", join(BIN, "forever")],
        timeout_seconds: 0.5,
      },
    })) as CallToolResult;
    expect((short.structuredContent as Structured).timed_out).toBe(true);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  test("cancelling a call kills its process tree and the server keeps serving", async () => {
    const pidFile = join(fixture.root, "cancel-pids");
    const controller = new AbortController();
    const pending = server.client
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
        { signal: controller.signal },
      )
      .catch((e: Error) => e);
    await waitFor(() => pidsIn(pidFile).length === 2, 10_000, "tree started");
    controller.abort();
    expect(await withDeadline(pending, 10_000, "cancelled call")).toBeInstanceOf(Error);
    const pids = pidsIn(pidFile);
    await waitFor(
      () => pids.every((pid) => !alive(pid)),
      10_000,
      "every descendant gone after cancel",
    );
    const after = (await server.client.callTool({
      name: "conda_info",
      arguments: { json: true },
    })) as CallToolResult;
    expect((after.structuredContent as Structured).exit_code).toBe(0);
  });

  test("stdin reaches conda only when conda_execute supplies it", async () => {
    const withInput = (await server.client.callTool({
      name: "conda_execute",
      arguments: { argv: ["run", "--no-capture-output", join(BIN, "read-stdin")], stdin: "hello" },
    })) as CallToolResult;
    expect((withInput.structuredContent as Structured).stdout).toContain("hello");
    const without = await run([join(BIN, "read-stdin")]);
    expect(without.out.exit_code).toBe(0);
  });

  test("calls are serialized: concurrent executions never overlap", async () => {
    const log = join(fixture.root, "serial-log");
    const script = `echo start $(date +%s%N) >> ${log}; sleep 0.2; echo end $(date +%s%N) >> ${log}`;
    await Promise.all(Array.from({ length: 4 }, () => run(["sh", "-c", script])));
    const events = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((line) => line.split(" ")[0]);
    expect(events).toEqual(["start", "end", "start", "end", "start", "end", "start", "end"]);
  });

  test("progress notifications arrive while conda runs when the client asks", async () => {
    const messages: string[] = [];
    await server.client.callTool(
      {
        name: "conda_run",
        arguments: {
          no_capture_output: true,
          executable_call: ["sh", "-c", "echo working >&2; sleep 1"],
        },
      },
      undefined,
      { onprogress: (p) => messages.push(p.message ?? ""), resetTimeoutOnProgress: true },
    );
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.at(-1)).toContain("conda run: running for");
  });

  test("installing a plugin during a call sets restart_required", async () => {
    const distInfo = join(fixture.sitePackages, "late_plugin-1.0.dist-info");
    const script = `mkdir -p ${distInfo} && printf '[conda]\\nlate = late_plugin\\n' > ${distInfo}/entry_points.txt && printf 'Name: late-plugin\\nVersion: 1.0\\n' > ${distInfo}/METADATA`;
    const { out } = await run(["sh", "-c", script]);
    expect(out.exit_code).toBe(0);
    expect(out.restart_required).toBe(true);
  });
});

describe("disaster guards through conda_execute", () => {
  test("removing the base environment is refused even with every option", async () => {
    for (const argv of [
      ["remove", "--all", "-n", "base", "--yes"],
      ["env", "remove", "-p", fixture.prefix],
    ]) {
      const result = (await server.client.callTool({
        name: "conda_execute",
        arguments: { argv },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain("Refused");
    }
  });

  test("removing a folder that is not an environment is refused", async () => {
    const folder = join(fixture.root, "not-an-env");
    mkdirSync(folder);
    writeFileSync(join(folder, "precious.txt"), "keep me");
    const result = (await server.client.callTool({
      name: "conda_env_remove",
      arguments: { prefix: folder },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("Refused");
  });
});
