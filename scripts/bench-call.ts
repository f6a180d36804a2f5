#!/usr/bin/env bun
// Per-call overhead: an MCP round trip (SDK client over stdio → compiled server → conda →
// result) against spawning the same conda with the same argv directly, interleaved call by call:
// a typed read (no safety check) and a raw conda_execute call (which the safety check precedes).
// Usage: bun scripts/bench-call.ts [--calls N] [--binary PATH]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  benchConda,
  benchDir,
  binaryUnderTest,
  deadline,
  machineLine,
  markdownTable,
  ms,
  ratio,
  type Stats,
  sampleInterleaved,
  signedMs,
  timeRun,
} from "./bench-support.ts";

const argv = process.argv.slice(2);
const callsAt = argv.indexOf("--calls");
const CALLS = callsAt >= 0 ? Number(argv[callsAt + 1]) : 120;
const WARMUP = 10;

const target = await benchConda(argv);
const scratch = await benchDir();
try {
  process.stderr.write(`building the host binary in ${scratch.dir} ...\n`);
  const binary = await binaryUnderTest(argv, scratch.dir);
  const transport = new StdioClientTransport({
    command: binary,
    args: ["--conda", target.condaExe, "--no-cache", "--allow-exec"],
    env: target.env,
    stderr: "ignore",
  });
  const client = new Client({ name: "conda-mcp-bench", version: "0.0.0" });
  await deadline(client.connect(transport), 60_000, "connecting to the server");

  // Round trip minus conda's own run as the server timed it (spawn to exit): the server's share,
  // free of conda's run-to-run spread.
  const serverShare = new Map<string, number[]>();
  const mcpCall = (name: string, args: Record<string, unknown>, expected: string) => async () => {
    const started = performance.now();
    const result = (await deadline(
      client.callTool({ name, arguments: args }),
      60_000,
      name,
    )) as CallToolResult;
    const elapsed = performance.now() - started;
    const structured = result.structuredContent as
      | { stdout?: string; duration_ms?: number }
      | undefined;
    const stdout = structured?.stdout ?? "";
    if (result.isError || !stdout.includes(expected)) {
      throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
    }
    const shares = serverShare.get(name) ?? [];
    shares.push(elapsed - (structured?.duration_ms ?? 0));
    serverShare.set(name, shares);
    return elapsed;
  };
  const direct = (args: string[], expected: string) => async () => {
    const run = await timeRun([target.condaExe, ...args], target.env);
    if (run.exitCode !== 0 || !run.stdout.includes(expected)) {
      throw new Error(`conda ${args.join(" ")} failed (exit ${run.exitCode})`);
    }
    return run.ms;
  };

  process.stderr.write(`${WARMUP} warm-up + ${CALLS} calls of each, interleaved ...\n`);
  const cases = {
    // A typed read: no safety check runs, so this is the server's own per-call cost.
    'MCP `conda_info` `{"json": true}`': mcpCall("conda_info", { json: true }, "conda_version"),
    "direct `conda info --json`": direct(["info", "--json"], "conda_version"),
    // A raw call: the safety check (the fact-finder's Python start) runs before conda.
    'MCP `conda_execute` `{"argv": ["--version"]}`': mcpCall(
      "conda_execute",
      { argv: ["--version"] },
      "conda ",
    ),
    "direct `conda --version`": direct(["--version"], "conda "),
  };
  const stats = await sampleInterleaved(cases, { warmup: WARMUP, runs: CALLS });
  await client.close();

  const names = Object.keys(cases);
  const rows: string[][] = [];
  for (let i = 0; i < names.length; i += 2) {
    const [mcpName, directName] = [names[i] as string, names[i + 1] as string];
    const [mcp, floor] = [stats[mcpName] as Stats, stats[directName] as Stats];
    rows.push([
      mcpName,
      ms(mcp.p50),
      ms(mcp.p99),
      directName,
      ms(floor.p50),
      ms(floor.p99),
      ratio(mcp.p50, floor.p50),
      signedMs(mcp.p50 - floor.p50),
      ms(median(serverShare.get(toolOf(mcpName)) ?? [])),
    ]);
  }
  console.log(`Measured ${machineLine()}; ${target.label}, compiled release binary.`);
  console.log(
    `Command: \`bun scripts/bench-call.ts --calls ${CALLS}\` (part of \`npm run bench\`)\n`,
  );
  console.log(`Per call, ${CALLS} calls each after ${WARMUP} warm-up calls (ms):\n`);
  console.log(
    markdownTable(
      [
        "MCP round trip",
        "p50",
        "p99",
        "floor: same argv spawned directly",
        "p50",
        "p99",
        "ratio p50",
        "overhead p50",
        "server's share p50",
      ],
      rows,
    ),
  );
  const readShare = median(serverShare.get("conda_info") ?? []);
  console.log(
    `\nGoal: a typed call's server's share ≤ 2 ms at p50: ${readShare <= 2 ? "met" : "NOT met"} ` +
      `(conda_info, ${ms(readShare)} ms).`,
  );
} finally {
  await scratch.cleanup();
  await target.cleanup();
}

/** The tool a case's name calls (`MCP \`conda_info\` ...`). */
function toolOf(caseName: string): string {
  return caseName.split("`")[1] ?? "";
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}
