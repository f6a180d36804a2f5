import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  type CondaMcpServer,
  createCondaMcpServer,
  type ExecutionEvent,
} from "../../src/create-conda-mcp-server.ts";
import { CondaMcpError } from "../../src/errors.ts";
import { isGone, waitUntil } from "../execute/process-test-helpers.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { describeRealConda, useRealCondaSandbox } from "../support/real-conda.ts";
import { runProgram } from "../support/run-program.ts";
import { withDeadline } from "../support/start-server.ts";

/** An SDK client connected to an embedded server through an in-memory transport pair. */
async function connect(embedded: CondaMcpServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await embedded.server.connect(serverSide);
  const client = new Client({ name: "library-tests", version: "0" });
  await client.connect(clientSide);
  return client;
}

describe("createCondaMcpServer on the fixture conda", () => {
  let fixture: FixtureConda;
  let embedded: CondaMcpServer;
  let client: Client;
  const events: ExecutionEvent[] = [];

  beforeAll(async () => {
    fixture = await makeFixtureConda();
    embedded = await createCondaMcpServer({
      conda: fixture.condaExe,
      env: fixture.env,
      cache: false,
      allowExec: true,
      onExecution: (event) => events.push(event),
      filterTools: (tool) => tool.name !== "conda_search",
      log: () => {},
    });
    client = await connect(embedded);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await embedded?.close();
    await fixture?.cleanup();
  });

  test("lists the tools the options and the predicate leave", async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["conda_info", "conda_run", "conda_execute"]));
    expect(names).not.toContain("conda_search");
    expect(embedded.capabilities.listed_tools).toEqual(names);
  });

  test("serves conda://capabilities, the same document as its capabilities field", async () => {
    const read = await client.readResource({ uri: "conda://capabilities" });
    const content = read.contents[0];
    expect(JSON.parse(content && "text" in content ? content.text : "{}")).toEqual(
      embedded.capabilities,
    );
    expect(embedded.capabilities.conda_version).toBe("26.7.0");
  });

  test("a call runs conda and the host observes its argv and result", async () => {
    const result = (await client.callTool({
      name: "conda_info",
      arguments: { json: true },
    })) as CallToolResult;
    expect(result.isError).toBe(false);
    const event = events.find((e) => e.tool === "conda_info");
    expect(event?.argv).toEqual(["info", "--json"]);
    expect(event?.result.exit_code).toBe(0);
    expect(event?.durationMs).toBeGreaterThan(0);
  });

  test("a cancelled call ends its process tree", async () => {
    const pidFile = join(fixture.root, "cancel-pid");
    const controller = new AbortController();
    const pending = client
      .callTool(
        {
          name: "conda_run",
          arguments: { executable_call: ["sh", "-c", `echo $$ > '${pidFile}'; exec sleep 100000`] },
        },
        undefined,
        { signal: controller.signal },
      )
      .catch((error: unknown) => error);
    await waitUntil(
      () => {
        try {
          return readFileSync(pidFile, "utf8").trim() !== "";
        } catch {
          return false;
        }
      },
      30_000,
      "the call's process",
    );
    controller.abort();
    await pending;
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    await waitUntil(() => isGone(pid), 15_000, "the cancelled process to end");
    await waitUntil(
      () => events.some((e) => e.tool === "conda_run" && e.result.cancelled),
      15_000,
      "the cancelled execution's event",
    );
  });

  test("an observer that throws fails neither the call nor the server", async () => {
    const lines: string[] = [];
    const throwing = await createCondaMcpServer({
      conda: fixture.condaExe,
      env: fixture.env,
      cache: false,
      onExecution: () => {
        throw new Error("observer broke");
      },
      log: (line) => lines.push(line),
    });
    const other = await connect(throwing);
    try {
      const result = (await other.callTool({
        name: "conda_info",
        arguments: { json: true },
      })) as CallToolResult;
      expect(result.isError).toBe(false);
      expect(lines).toEqual(["onExecution failed: observer broke"]);
    } finally {
      await other.close();
      await throwing.close();
    }
  });

  test("each setting reaches the server as its startup option", async () => {
    const narrowed = await createCondaMcpServer({
      conda: fixture.condaExe,
      env: fixture.env,
      cache: false,
      allowDestructive: true,
      tools: ["conda_info", "env list"],
      log: () => {},
    });
    try {
      expect(narrowed.capabilities.policy).toEqual({
        allow_write: true,
        allow_destructive: true,
        allow_exec: false,
      });
      expect(narrowed.capabilities.catalog_source).toBe("introspection");
      const listed = await (await connect(narrowed)).listTools();
      expect(listed.tools.map((t) => t.name).sort()).toEqual(["conda_env_list", "conda_info"]);
    } finally {
      await narrowed.close();
    }
  });

  test("settings are checked as the command line checks them", async () => {
    const error = await createCondaMcpServer({ conda: fixture.condaExe, timeoutSeconds: 0 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CondaMcpError);
    expect((error as CondaMcpError).message).toContain("--timeout takes a number greater than 0");
  });

  test("close() kills running calls and leaves no process or timer behind", async () => {
    const pidFile = join(fixture.root, "close-pid");
    const child = Bun.spawn(
      [process.execPath, join(import.meta.dir, "embed-and-close.ts"), fixture.condaExe, pidFile],
      { env: fixture.env, stdout: "pipe", stderr: "pipe" },
    );
    // The script never calls process.exit: it ends only when nothing is left to wait for.
    const code = await withDeadline(child.exited, 60_000, "the embedding script to end by itself");
    expect(code).toBe(0);
    expect(await new Response(child.stdout).text()).toBe("closed\n");
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    expect(isGone(pid)).toBe(true);
  }, 90_000);
});

// A host installs the package as source in its node_modules (package.json's `bun` export), where
// bun refuses some of what it allows in the repository, such as macros.
test("serves the fixture conda when installed in a host's node_modules", async () => {
  const repo = join(import.meta.dir, "..", "..");
  const host = await mkdtemp(join(tmpdir(), "conda-mcp-host-"));
  const fixture = await makeFixtureConda();
  try {
    const installed = join(host, "node_modules", "conda-mcp");
    await mkdir(installed, { recursive: true });
    await cp(join(repo, "src"), join(installed, "src"), { recursive: true });
    await cp(join(repo, "package.json"), join(installed, "package.json"));
    // Its dependencies, as an install would put them beside it.
    await symlink(join(repo, "node_modules"), join(installed, "node_modules"));
    await writeFile(
      join(host, "host.ts"),
      `import { createCondaMcpServer } from "conda-mcp";
const embedded = await createCondaMcpServer({ conda: process.argv[2], cache: false, log: () => {} });
console.log(JSON.stringify(embedded.capabilities.conda_version));
await embedded.close();
`,
    );
    const run = await runProgram([process.execPath, join(host, "host.ts"), fixture.condaExe], {
      env: fixture.env,
      cwd: host,
      timeoutMs: 60_000,
    });
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toBe("26.7.0");
  } finally {
    await fixture.cleanup();
    await rm(host, { recursive: true, force: true });
  }
}, 90_000);

describeRealConda("createCondaMcpServer", () => {
  const sandbox = useRealCondaSandbox();

  test("serves the real conda through an in-memory transport", async () => {
    const embedded = await createCondaMcpServer({
      conda: sandbox().condaExe,
      env: sandbox().env,
      cache: false,
      log: () => {},
    });
    const client = await connect(embedded);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["conda_info", "conda_menuinst"]));
      const result = (await client.callTool(
        { name: "conda_info", arguments: { json: true } },
        undefined,
        { timeout: 120_000 },
      )) as CallToolResult;
      const structured = result.structuredContent as { parsed_json: { conda_version: string } };
      expect(structured.parsed_json.conda_version).toBe(
        String(embedded.capabilities.conda_version),
      );
    } finally {
      await client.close();
      await embedded.close();
    }
  }, 120_000);
});
