import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { isGroupAlive } from "../../src/execute/run-process.ts";
import type { ExecutionResult } from "../../src/result/execution-result.ts";
import {
  isGone,
  killAll,
  printedPids,
  spawnTreeScript,
  waitUntil,
} from "../execute/process-test-helpers.ts";
import {
  describeRealConda,
  makeRealCondaSandbox,
  type RealCondaSandbox,
} from "../support/real-conda.ts";
import { connectHttp, startHttpServer } from "../support/start-http-server.ts";
import { type RunningServer, startServer, withDeadline } from "../support/start-server.ts";

// The server as a client sees it, on the real conda: over stdio (`bun src/main.ts`, or the
// binary named by CONDA_MCP_TEST_BINARY) and over Streamable HTTP.

let sandbox: RealCondaSandbox;
let server: RunningServer;
let tools: Tool[];
const everyPid: number[] = [];

beforeAll(async () => {
  if (!process.env.CONDA_MCP_TEST_CONDA) return;
  sandbox = await makeRealCondaSandbox();
  // conda-completion writes its manifest into the sandbox HOME, as a user would have it.
  const generated = await sandbox.conda(["completion", "generate"]);
  if (generated.exitCode !== 0) throw new Error(`conda completion generate: ${generated.stderr}`);
  server = await startServer({
    conda: sandbox.condaExe,
    env: sandbox.env,
    args: ["--allow-exec", "--timeout", "120"],
  });
  tools = (await server.client.listTools()).tools;
}, 180_000);

afterAll(async () => {
  await server?.close();
  killAll(everyPid);
  await sandbox?.cleanup();
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await withDeadline(
    server.client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 }),
    150_000,
    `tools/call ${name}`,
  )) as CallToolResult;
}

function structured(result: CallToolResult): ExecutionResult {
  return result.structuredContent as unknown as ExecutionResult;
}

describeRealConda("the server over stdio", () => {
  test("lists conda's commands, its external plugins' commands and the raw and completion tools", () => {
    const names = tools.map((t) => t.name);
    for (const name of [
      "conda_create",
      "conda_env_config_vars_set",
      "conda_run",
      "conda_menuinst",
      "conda_completion_generate",
      "conda_execute",
      "conda_cli_command",
    ]) {
      expect(names).toContain(name);
    }
    expect(names).not.toContain("conda_activate");
    expect(tools.find((t) => t.name === "conda_remove")?._meta?.["conda-mcp/aliases"]).toEqual([
      ["uninstall"],
    ]);
  });

  test("conda://capabilities describes the real conda", async () => {
    const read = await server.client.readResource({ uri: "conda://capabilities" });
    const content = read.contents[0];
    const capabilities = JSON.parse(content && "text" in content ? content.text : "{}");
    expect(capabilities.conda_version).toBe(sandbox.discovery.installation.condaVersion);
    expect(JSON.stringify(capabilities)).toContain("menuinst");
  });

  test("conda_info --json returns conda's own document as parsed_json", async () => {
    const result = await call("conda_info", { json: true });
    const outcome = structured(result);
    expect(outcome.exit_code).toBe(0);
    const info = outcome.parsed_json as Record<string, unknown>;
    expect(info.conda_version).toBe(sandbox.discovery.installation.condaVersion);
    expect(info.root_prefix).toBe(sandbox.discovery.installation.rootPrefix);
    expect(info.envs_dirs).toContain(sandbox.envsDir);
  });

  test("conda_cli_command reads conda-completion's generated manifest", async () => {
    const result = await call("conda_cli_command", { command_path: ["env", "create"] });
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as Record<string, unknown>;
    expect(structured.availability).toBe("available");
    expect(structured.stale).toBe(false);
    expect(JSON.stringify(structured)).toContain("--file");
  });

  test("a cancelled conda_run ends the whole process tree and the server keeps serving", async () => {
    const dir = join(sandbox.root, "tree");
    mkdirSync(dir);
    const script = spawnTreeScript(dir);
    const controller = new AbortController();
    const pending = server.client
      .callTool(
        {
          name: "conda_run",
          arguments: { no_capture_output: true, executable_call: ["sh", "-c", script] },
        },
        undefined,
        { signal: controller.signal, timeout: 120_000 },
      )
      .catch((error: unknown) => error);
    const read = (name: string) => {
      const file = join(dir, name);
      return existsSync(file) ? readFileSync(file, "utf8") : "";
    };
    await waitUntil(() => read("ready").includes("ready"), 60_000, "the tree under conda run");
    controller.abort();
    await pending;
    const pids = printedPids(read("pids"), "pid");
    everyPid.push(...pids);
    expect(pids.length).toBeGreaterThan(0);
    const pgid = Number(read("pgid").trim());
    await waitUntil(
      () => pids.every(isGone) && !isGroupAlive(pgid, process.platform),
      15_000,
      "no survivor of the cancelled tree",
    );
    const info = await call("conda_info", { json: true });
    expect(structured(info).exit_code).toBe(0);
  }, 120_000);
});

describeRealConda("the server over Streamable HTTP", () => {
  test("an SDK client lists the tools and calls conda_info", async () => {
    const http = await startHttpServer({ conda: sandbox.condaExe, env: sandbox.env, args: [] });
    try {
      const client = await connectHttp(http);
      const listed = (await client.listTools()).tools.map((t) => t.name);
      expect(listed).toEqual(tools.map((t) => t.name).filter((n) => n !== "conda_execute"));
      const result = (await client.callTool(
        { name: "conda_info", arguments: { json: true } },
        undefined,
        { timeout: 120_000 },
      )) as CallToolResult;
      expect(structured(result).exit_code).toBe(0);
      await client.close();
    } finally {
      await http.kill("SIGTERM");
    }
  }, 120_000);
});
