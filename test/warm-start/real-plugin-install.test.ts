import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ExecutionResult } from "../../src/result/execution-result.ts";
import {
  describeRealConda,
  makeRealCondaSandbox,
  pluginSitePackages,
  type RealCondaSandbox,
} from "../support/real-conda.ts";
import { startServer } from "../support/start-server.ts";

// A plugin installed while the server runs: the call that installed it says restart_required,
// and the next start (warm: catalog cache and startup snapshot on) serves the new command.
// This writes a small distribution into the real conda's site-packages and removes it again,
// so it runs only on a conda built by the team's kit (its root holds `.real-conda-kit`) or
// when CONDA_MCP_TEST_ALLOW_PLUGIN_INSTALL=1 says the conda may be changed.

const PLUGIN_MODULE = `from conda.plugins.hookspec import hookimpl
from conda.plugins.types import CondaSubcommand


def configure_parser(parser):
    parser.add_argument("--loud", action="store_true", help="Say it louder.")


def execute(args):
    print("HELLO FROM A PLUGIN" if args.loud else "hello from a plugin")
    return 0


@hookimpl
def conda_subcommands():
    yield CondaSubcommand(
        name="mcphello", summary="Say hello.", action=execute, configure_parser=configure_parser
    )
`;

let sandbox: RealCondaSandbox;
let sitePackages = "";
let allowed = false;
const written: string[] = [];

beforeAll(async () => {
  if (!process.env.CONDA_MCP_TEST_CONDA) return;
  sandbox = await makeRealCondaSandbox();
  sitePackages = pluginSitePackages(sandbox) ?? "";
  allowed = sitePackages !== "";
}, 120_000);

afterAll(async () => {
  for (const path of written) await rm(path, { recursive: true, force: true });
  await sandbox?.cleanup();
});

/** A shell line that installs the plugin as a distribution with a `conda` entry point. */
function installScript(): string {
  const module = join(sitePackages, "conda_mcp_test_hello.py");
  const distInfo = join(sitePackages, "conda_mcp_test_hello-1.0.dist-info");
  written.push(module, distInfo);
  const quoted = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
  return [
    `mkdir -p ${quoted(distInfo)}`,
    `printf '%s' ${quoted(PLUGIN_MODULE)} > ${quoted(module)}`,
    `printf 'Metadata-Version: 2.1\\nName: conda-mcp-test-hello\\nVersion: 1.0\\n' > ${quoted(join(distInfo, "METADATA"))}`,
    `printf '[conda]\\nmcphello = conda_mcp_test_hello\\n' > ${quoted(join(distInfo, "entry_points.txt"))}`,
  ].join(" && ");
}

describeRealConda("a plugin installed during a session", () => {
  test("sets restart_required on that call, and the next warm start serves its command", async () => {
    if (!allowed) {
      console.log("skipped: this conda may not be changed (see the comment at the top)");
      return;
    }
    const cacheHome = join(sandbox.root, "cache-home");
    await mkdir(cacheHome, { recursive: true });
    // The catalog cache and the startup snapshot live in XDG_CACHE_HOME.
    const env = { ...sandbox.env, XDG_CACHE_HOME: cacheHome };
    const start = () =>
      startServer({ conda: sandbox.condaExe, env, args: ["--allow-exec"], cache: true });

    const first = await start();
    try {
      const before = (await first.client.listTools()).tools.map((t) => t.name);
      expect(before).not.toContain("conda_mcphello");
      const result = (await first.client.callTool(
        { name: "conda_run", arguments: { executable_call: ["sh", "-c", installScript()] } },
        undefined,
        { timeout: 120_000 },
      )) as CallToolResult;
      const outcome = result.structuredContent as unknown as ExecutionResult;
      expect(outcome.exit_code).toBe(0);
      expect(outcome.restart_required).toBe(true);
    } finally {
      await first.close();
    }

    const second = await start();
    try {
      const after = (await second.client.listTools()).tools;
      const hello = after.find((t) => t.name === "conda_mcphello");
      expect(hello?.inputSchema.properties).toHaveProperty("loud");
      const result = (await second.client.callTool(
        { name: "conda_mcphello", arguments: { loud: true } },
        undefined,
        { timeout: 120_000 },
      )) as CallToolResult;
      expect((result.structuredContent as unknown as ExecutionResult).stdout).toBe(
        "HELLO FROM A PLUGIN\n",
      );
    } finally {
      await second.close();
    }
  }, 240_000);
});
