// Measures what a client sends its model for each tool (name + description + inputSchema, as
// JSON), at the compact (default) and the full schema detail, through the server's own tools/list.
//
//   bun scripts/measure-tool-list.ts --conda PATH
//
// Without --conda it uses the real conda built from the team's kit when present, else the
// fixture conda (see benchConda). Tokens are estimated as bytes / 4.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { benchConda, markdownTable } from "./bench-support.ts";

const MAIN = new URL("../src/main.ts", import.meta.url).pathname;
const DETAILS = ["compact", "full"] as const;

/** The tools the server lists for a conda at one schema detail. */
async function listTools(conda: string, env: Record<string, string>, detail: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, "--conda", conda, "--no-cache", "--schema-detail", detail],
    env,
    stderr: "ignore",
  });
  const client = new Client({ name: "measure-tool-list", version: "0" });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}

/** Bytes of what a model is shown of one tool. */
function modelBytes(tool: Tool): number {
  const { name, description, inputSchema } = tool;
  return Buffer.byteLength(JSON.stringify({ name, description, inputSchema }));
}

const tokens = (bytes: number) => String(Math.round(bytes / 4));

const target = await benchConda(process.argv.slice(2));
try {
  const listed = await Promise.all(DETAILS.map((d) => listTools(target.condaExe, target.env, d)));
  const [lean = [], full = []] = listed;
  const rows = lean.map((tool) => {
    const wide = full.find((t) => t.name === tool.name);
    const bytes = modelBytes(tool);
    const fullBytes = wide ? modelBytes(wide) : 0;
    return [tool.name, String(bytes), tokens(bytes), String(fullBytes), tokens(fullBytes)];
  });
  rows.sort((a, b) => Number(b[1]) - Number(a[1]));
  const total = (tools: Tool[]) => tools.reduce((sum, tool) => sum + modelBytes(tool), 0);
  const listBytes = (tools: Tool[]) => Buffer.byteLength(JSON.stringify({ tools }));
  console.log(`${target.label}: ${lean.length} tools, as listed with the default startup options.`);
  console.log("Command: `bun scripts/measure-tool-list.ts --conda PATH`\n");
  console.log(
    markdownTable(
      ["tool", "compact: bytes", "compact: ~tokens", "full: bytes", "full: ~tokens"],
      [
        ...rows,
        [
          "**all tools**",
          String(total(lean)),
          tokens(total(lean)),
          String(total(full)),
          tokens(total(full)),
        ],
        [
          "whole `tools/list` result (outputSchema, annotations, _meta too)",
          String(listBytes(lean)),
          "",
          String(listBytes(full)),
          "",
        ],
      ],
    ),
  );
} finally {
  await target.cleanup();
}
