import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { EXECUTION_RESULT_JSON_SCHEMA } from "../../src/result/execution-result-json-schema.ts";
import { MAX_ARGV_BYTES } from "../../src/schema/validate-args.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { type RunningServer, startServer } from "../support/start-server.ts";

const SECRET_TOKEN = "tk-0123456789-SECRET";
const SECRET_ENV = "hunter2-SECRET-ENV";

let fixture: FixtureConda;
let server: RunningServer;
let tools: Tool[];

beforeAll(async () => {
  fixture = await makeFixtureConda({
    withCompletion: "0.3.2",
    condarc: `channels:\n  - https://conda.example.com/t/${SECRET_TOKEN}/private\n  - https://user:${SECRET_TOKEN}@repo.example.com/c\n`,
  });
  server = await startServer({
    conda: fixture.condaExe,
    env: { ...fixture.env, MY_API_TOKEN: SECRET_ENV, AWS_SECRET_ACCESS_KEY: SECRET_ENV },
  });
  tools = (await server.client.listTools()).tools;
});

afterAll(async () => {
  await server?.close();
  fixture?.cleanup();
});

function tool(name: string): Tool {
  const found = tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await server.client.callTool({ name, arguments: args })) as CallToolResult;
}

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

describe("tools/list", () => {
  test("lists one typed tool per terminal command, plugins and nested commands included", () => {
    const names = tools.map((t) => t.name);
    for (const name of [
      "conda_info",
      "conda_install",
      "conda_env_config_vars_set",
      "conda_greet",
      "conda_tools_cache_clear",
      "conda_remove",
    ]) {
      expect(names).toContain(name);
    }
    expect(names).not.toContain("conda_uninstall");
    expect(names).not.toContain("conda_activate");
  });

  test("definitions are compact by default; --schema-detail full adds conda's help and how values pass", async () => {
    const install = tool("conda_install");
    expect(JSON.stringify(install.inputSchema)).not.toContain("true passes");
    const full = await startServer({
      conda: fixture.condaExe,
      env: fixture.env,
      args: ["--schema-detail", "full"],
    });
    try {
      const wide = (await full.client.listTools()).tools.find((t) => t.name === "conda_install");
      expect(JSON.stringify(wide?.inputSchema)).toContain("true passes");
      expect(Object.keys(wide?.inputSchema.properties ?? {})).toEqual(
        Object.keys(install.inputSchema.properties ?? {}),
      );
      // The result's fields are explained once, in the instructions, rather than in every tool.
      expect(wide?.outputSchema).toEqual(EXECUTION_RESULT_JSON_SCHEMA as never);
      expect(JSON.stringify(install.outputSchema)).not.toContain('"description"');
      expect(Object.keys(install.outputSchema?.properties ?? {})).toEqual(
        Object.keys(EXECUTION_RESULT_JSON_SCHEMA.properties),
      );
    } finally {
      await full.close();
    }
    const instructions = server.client.getInstructions() ?? "";
    expect(instructions).toContain("- json: ");
    // The one bound of the whole call, which no keyword of a property can state.
    expect(instructions).toContain(`at most ${MAX_ARGV_BYTES} bytes of command line in all`);
    expect(instructions).toContain("restart_required (conda's commands or plugins changed");
  });

  test("conda_execute is not listed without --allow-exec", () => {
    expect(tools.map((t) => t.name)).not.toContain("conda_execute");
  });

  test("conda_cli_command is listed because conda-completion is installed", () => {
    expect(tool("conda_cli_command").annotations?.readOnlyHint).toBe(true);
  });

  test("each generated tool carries a plain object schema, the result schema, hints and its conda path", () => {
    for (const t of tools.filter((t) => t.name !== "conda_cli_command")) {
      expect(t.inputSchema.type).toBe("object");
      expect(t.inputSchema).not.toHaveProperty("oneOf");
      expect(t.outputSchema?.required).toContain("exit_code");
      expect(t.annotations).toHaveProperty("readOnlyHint");
    }
    expect(tool("conda_remove")._meta?.["conda-mcp/aliases"]).toEqual([["uninstall"]]);
    expect(tool("conda_env_config_vars_set")._meta?.["conda-mcp/path"]).toEqual([
      "env",
      "config",
      "vars",
      "set",
    ]);
    expect(tool("conda_remove").description).toContain("conda uninstall");
  });

  test("a greedy plugin takes one opaque args array, which names the global options it refuses", () => {
    const properties = tool("conda_greet").inputSchema.properties ?? {};
    expect(Object.keys(properties)).toEqual(["args"]);
    const { description } = properties.args as { description: string };
    for (const option of ["--json", "--debug", "--trace", "--no-plugins"])
      expect(description).toContain(option);
  });
});

describe("conda://capabilities", () => {
  test("describes the target, its catalog, plugins and fingerprint", async () => {
    const { resources } = await server.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(["conda://capabilities"]);
    const read = await server.client.readResource({ uri: "conda://capabilities" });
    const doc = JSON.parse((read.contents[0] as { text: string }).text);
    expect(doc.target_executable).toBe(fixture.condaExe);
    expect(doc.conda_version).toBe("26.7.0");
    expect(doc.discovery_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    // Started with --no-cache: no snapshot, so the server answered the handshake itself.
    expect(doc).toMatchObject({ catalog_source: "introspection", handshake_source: "server" });
    expect(doc.generated_tools).toContain("conda_env_list");
    expect(doc.plugins.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(["fixture-greet", "fixture-tools", "conda-completion"]),
    );
    expect(
      doc.catalog.commands.find((c: { path: string[] }) => c.path.join(" ") === "activate").status,
    ).toBe("excluded");
  });

  test("carries every argument of every command, with what the compact tools leave out", async () => {
    const read = await server.client.readResource({ uri: "conda://capabilities" });
    const doc = JSON.parse((read.contents[0] as { text: string }).text);
    type Argument = {
      property: string | null;
      option_strings: string[];
      class: string;
      recognised_as: string | null;
      hidden: boolean;
      help: string | null;
      default?: unknown;
    };
    const commands = doc.catalog.commands as {
      tool: string | null;
      arguments: Argument[];
      exclusive_groups: { members: string[] }[];
    }[];
    for (const t of tools.filter(
      (t) => t.name.startsWith("conda_") && t.name !== "conda_cli_command",
    )) {
      const command = commands.find((c) => c.tool === t.name);
      // A greedy plugin parser declares no arguments; its opaque `args` is the server's own.
      if (command?.arguments.length === 0) continue;
      const served = command?.arguments.flatMap((a) => (a.property ? [a.property] : [])) ?? [];
      expect(served.sort()).toEqual(Object.keys(t.inputSchema.properties ?? {}).sort());
    }
    const install = commands.find((c) => c.tool === "conda_install");
    const channel = install?.arguments.find((a) => a.option_strings.includes("--channel"));
    expect(channel).toMatchObject({ property: "channel", recognised_as: "argparse._AppendAction" });
    // conda's whole help, which the compact definition cuts to its first sentence.
    expect(channel?.help?.length).toBeGreaterThan(
      (
        (tool("conda_install").inputSchema.properties as Record<string, { description?: string }>)
          .channel?.description ?? ""
      ).length,
    );
    expect(install?.arguments.find((a) => a.option_strings.includes("--debug"))).toMatchObject({
      property: null,
      hidden: true,
    });
    // conda's NULL ("use the configuration") is never a default.
    expect(install?.arguments.find((a) => a.option_strings.includes("--json"))).not.toHaveProperty(
      "default",
    );
    expect(install?.exclusive_groups.map((g) => g.members)).toContainEqual(["name", "prefix"]);
  });

  test("holds no tokens, credentials or environment values", async () => {
    const read = await server.client.readResource({ uri: "conda://capabilities" });
    const raw = JSON.stringify(read);
    expect(raw).not.toContain(SECRET_TOKEN);
    expect(raw).not.toContain(SECRET_ENV);
    expect(raw).not.toContain(fixture.home);
    expect(JSON.stringify(tools)).not.toContain(SECRET_TOKEN);
  });

  test("an unknown resource is an error that names nothing", async () => {
    const error = await server.client
      .readResource({ uri: "conda://secrets" })
      .catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String(error)).toContain("Unknown resource");
    expect(String(error)).not.toContain("capabilities");
  });
});

describe("tools/call", () => {
  test("a read-only tool runs conda and returns the structured result", async () => {
    const result = await call("conda_info", { json: true });
    expect(result.isError).toBe(false);
    const structured = result.structuredContent as Record<string, unknown>;
    expect(structured.exit_code).toBe(0);
    expect((structured.parsed_json as { conda_version: string }).conda_version).toBe("26.7.0");
    expect(structured.restart_required).toBe(false);
    expect(text(result).split("\n")[0]).toContain("conda info");
  });

  test("conda receives exactly the typed arguments", async () => {
    const result = await call("conda_list", { name: "demo", json: true, fields: "name,version" });
    const parsed = (
      result.structuredContent as {
        parsed_json: { command: string[]; args: Record<string, unknown> };
      }
    ).parsed_json;
    expect(parsed.command).toEqual(["list"]);
    expect(parsed.args).toMatchObject({
      name: "demo",
      json: true,
      list_fields: ["name", "version"],
    });
  });

  test("invalid arguments are a tool error naming the path, never the value", async () => {
    const result = await call("conda_list", { regex: "-x-SNEAKY", bogus: 1 });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("/regex: expected a string that does not start with '-'");
    expect(text(result)).toContain("/bogus: unknown property");
    expect(text(result)).not.toContain("SNEAKY");
  });

  test("a write is refused without --allow-write, naming the option", async () => {
    const result = await call("conda_install", { name: "demo", packages: ["numpy"] });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("--allow-write");
  });

  test("a dry run of a write is a read and runs", async () => {
    const result = await call("conda_install", {
      name: "demo",
      packages: ["numpy"],
      dry_run: true,
      json: true,
    });
    expect(result.isError).toBe(false);
  });

  test("a destructive call is refused naming --allow-destructive", async () => {
    const result = await call("conda_env_remove", { name: "demo" });
    expect(text(result)).toContain("--allow-destructive");
  });

  test("conda run and plugin commands are refused naming --allow-exec", async () => {
    expect(text(await call("conda_run", { executable_call: ["true"] }))).toContain("--allow-exec");
    expect(text(await call("conda_greet", { args: ["hi"] }))).toContain("--allow-exec");
  });

  test("an unknown tool is a protocol error that names nothing", async () => {
    const error = await server.client
      .callTool({ name: "conda_nope", arguments: {} })
      .catch((e: Error) => e);
    expect(String(error)).toContain("Unknown tool");
    expect(String(error)).not.toContain("conda_info");
  });

  test("conda_cli_command answers from the manifest state", async () => {
    const result = await call("conda_cli_command", { command_path: ["env", "list"] });
    expect((result.structuredContent as { availability: string }).availability).toBe(
      "not_generated",
    );
  });
});

describe("a conda found as `python -m conda`", () => {
  test("with CONDA_EXE naming the interpreter and _CE_M=-m, calls run conda as a module", async () => {
    const moduleServer = await startServer({
      conda: null,
      env: { ...fixture.env, CONDA_EXE: fixture.python, _CE_M: "-m", _CE_CONDA: "conda" },
    });
    try {
      const result = (await moduleServer.client.callTool({
        name: "conda_info",
        arguments: { json: true },
      })) as CallToolResult;
      const out = result.structuredContent as {
        exit_code: number;
        parsed_json: { conda_version: string };
      };
      expect(out.exit_code).toBe(0);
      expect(out.parsed_json.conda_version).toBe("26.7.0");
    } finally {
      await moduleServer.close();
    }
  });
});
