// A newcomer's first minute: the server against the bundled TEST FIXTURE conda, driven by a real
// MCP client, printed as a short session. Needs no conda: `npm ci && npm run demo`.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { makeFixtureConda } from "../test/support/make-fixture-conda.ts";
import { serverCommand } from "../test/support/start-server.ts";

const say = (line = "") => process.stdout.write(`${line}\n`);
const firstLine = (result: CallToolResult) =>
  result.content
    .map((c) => (c.type === "text" ? c.text : ""))
    .join("\n")
    .split("\n")[0];

say("conda-mcp demo: the server runs against the bundled TEST FIXTURE conda, a small");
say("stand-in shaped like conda 26.7 (test/fixtures/conda). It is not a real conda.");
say();

const fixture = await makeFixtureConda({ withCompletion: "0.3.2" });
const { command, args } = serverCommand();
const client = new Client({ name: "conda-mcp-demo", version: "0.0.0" });
try {
  await client.connect(
    new StdioClientTransport({
      command,
      args: [...args, "--conda", fixture.condaExe, "--no-cache"],
      env: fixture.env,
      stderr: "inherit",
    }),
  );
  const server = client.getServerVersion();
  say(`> initialize          ${server?.name} ${server?.version}`);

  const { tools } = await client.listTools();
  say(`> tools/list          ${tools.length} tools`);
  for (let i = 0; i < tools.length; i += 4) {
    say(
      `    ${tools
        .slice(i, i + 4)
        .map((t) => t.name.padEnd(28))
        .join("")
        .trimEnd()}`,
    );
  }

  const read = await client.readResource({ uri: "conda://capabilities" });
  const caps = JSON.parse((read.contents[0] as { text: string }).text);
  say("> resources/read     conda://capabilities");
  say(
    `    conda ${caps.conda_version}, ${caps.generated_tools.length} generated tools, plugins: ${caps.plugins.map((p: { name: string }) => p.name).join(", ")}`,
  );
  say(
    `    policy: write ${caps.policy.allow_write}, destructive ${caps.policy.allow_destructive}, exec ${caps.policy.allow_exec}`,
  );

  const info = (await client.callTool({
    name: "conda_info",
    arguments: { json: true },
  })) as CallToolResult;
  const parsed = (info.structuredContent as { parsed_json: Record<string, unknown> }).parsed_json;
  say('> tools/call          conda_info {"json": true}');
  say(`    ${firstLine(info)}`);
  say(
    `    parsed_json.conda_version = ${JSON.stringify(parsed.conda_version)}, platform = ${JSON.stringify(parsed.platform)}`,
  );

  const refused = (await client.callTool({
    name: "conda_install",
    arguments: { name: "demo", packages: ["numpy"] },
  })) as CallToolResult;
  say('> tools/call          conda_install {"name": "demo", "packages": ["numpy"]}');
  say(`    refused by policy: ${firstLine(refused)}`);

  const invalid = (await client.callTool({
    name: "conda_list",
    arguments: { regex: "--evil" },
  })) as CallToolResult;
  say('> tools/call          conda_list {"regex": "--evil"}');
  say(
    `    ${invalid.content
      .map((c) => (c.type === "text" ? c.text : ""))
      .join(" ")
      .replace(/\n/g, " ")}`,
  );
  say();
  say(
    "With a real conda: npm start -- --conda /path/to/conda (or set CONDA_EXE, or put conda on PATH).",
  );
} finally {
  await client.close();
  await fixture.cleanup();
}
