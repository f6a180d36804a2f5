#!/usr/bin/env bun
// Memory and drain: peak RSS of the compiled server while `conda run --no-capture-output` has a
// child print 1 GiB (test/fixtures/bin/flood) through a conda_run call, and the call's drain
// throughput against the same conda command line piped into `cat > /dev/null`. Linux only
// (/proc/<pid>/status).
// Usage: bun scripts/bench-memory.ts [--bytes N] [--runs N] [--binary PATH]
import { join } from "node:path";
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
  memoryOf,
  mib,
  ratio,
  summarize,
  throughput,
  timeRun,
} from "./bench-support.ts";
import { REPO_ROOT } from "./build.ts";

const argv = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = argv.indexOf(name);
  return at >= 0 ? Number(argv[at + 1]) : fallback;
};
const BYTES = option("--bytes", 2 ** 30);
const RUNS = option("--runs", 3);
const FLOOD = join(REPO_ROOT, "test", "fixtures", "bin", "flood");
const SAMPLE_EVERY_MS = 20;

if (process.platform !== "linux") {
  console.error("bench-memory reads /proc/<pid>/status and runs on Linux only");
  process.exit(1);
}

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
  const pid = transport.pid;
  if (pid === null) throw new Error("the server has no pid");
  await client.listTools();
  const atStart = await memoryOf(pid);

  const condaArgv = ["run", "--no-capture-output", FLOOD, String(BYTES)];
  const mcpMs: number[] = [];
  const floorMs: number[] = [];
  const rawFloorMs: number[] = [];
  let peakRss = 0;
  process.stderr.write(`${RUNS} runs of ${mib(BYTES)} through MCP and through the floors ...\n`);
  for (let i = 0; i < RUNS; i++) {
    const sampler = setInterval(async () => {
      peakRss = Math.max(peakRss, (await memoryOf(pid)).rss);
    }, SAMPLE_EVERY_MS);
    const started = performance.now();
    const result = (await deadline(
      client.callTool({
        name: "conda_run",
        arguments: { no_capture_output: true, executable_call: [FLOOD, String(BYTES)] },
      }),
      300_000,
      "conda_run flood",
    )) as CallToolResult;
    mcpMs.push(performance.now() - started);
    clearInterval(sampler);
    const out = result.structuredContent as { exit_code: number; stdout_truncated: boolean };
    if (result.isError || out.exit_code !== 0 || !out.stdout_truncated) {
      throw new Error(`conda_run flood failed: ${JSON.stringify(result.content).slice(0, 500)}`);
    }

    const shell = (command: string) => ["/bin/sh", "-c", command];
    const quoted = [target.condaExe, ...condaArgv].map((a) => `'${a}'`).join(" ");
    const floor = await timeRun(shell(`${quoted} | cat > /dev/null`), target.env);
    const raw = await timeRun(shell(`'${FLOOD}' ${BYTES} | cat > /dev/null`), target.env);
    if (floor.exitCode !== 0 || raw.exitCode !== 0) throw new Error("a floor command failed");
    floorMs.push(floor.ms);
    rawFloorMs.push(raw.ms);
  }
  const atEnd = await memoryOf(pid);
  await client.close();

  const mcp = summarize(mcpMs).p50;
  const floor = summarize(floorMs).p50;
  const rawFloor = summarize(rawFloorMs).p50;
  console.log(`Measured ${machineLine()}; ${target.label}, compiled release binary.`);
  console.log(
    `Command: \`bun scripts/bench-memory.ts --bytes ${BYTES} --runs ${RUNS}\` (part of \`npm run bench\`)\n`,
  );
  console.log(
    `Server memory while a child prints ${mib(BYTES)} on stdout (kept: the first 1 MiB):\n`,
  );
  console.log(
    markdownTable(
      ["server process", "VmHWM (peak RSS)", "VmRSS"],
      [
        ["after start-up and tools/list", mib(atStart.hwm), mib(atStart.rss)],
        [`highest VmRSS sampled every ${SAMPLE_EVERY_MS} ms during the calls`, "", mib(peakRss)],
        [`after ${RUNS} calls`, mib(atEnd.hwm), mib(atEnd.rss)],
      ],
    ),
  );
  console.log(
    `\nDrain throughput, p50 of ${RUNS} runs (wall time of the whole command or call):\n`,
  );
  console.log(
    markdownTable(
      ["path", "p50 time", "throughput", "ratio to floor"],
      [
        [
          `MCP \`conda_run\` (no_capture_output, flood ${mib(BYTES)})`,
          `${(mcp / 1000).toFixed(2)} s`,
          throughput(BYTES, mcp),
          ratio(mcp, floor),
        ],
        [
          `floor: \`conda run --no-capture-output flood\` \\| \`cat > /dev/null\``,
          `${(floor / 1000).toFixed(2)} s`,
          throughput(BYTES, floor),
          "×1.00",
        ],
        [
          "for reference: `flood` \\| `cat > /dev/null` (no conda)",
          `${(rawFloor / 1000).toFixed(2)} s`,
          throughput(BYTES, rawFloor),
          ratio(rawFloor, floor),
        ],
      ],
    ),
  );
  // Idle is the server's resident memory once it is ready; its peak is the higher of the
  // kernel's high-water mark and what was sampled.
  const overIdle = Math.max(atEnd.hwm, peakRss) - atStart.rss;
  console.log(
    `\nGoal: peak RSS while a child prints ${mib(BYTES)} ≤ idle + 24 MiB: ` +
      `${overIdle <= 24 * 2 ** 20 ? "met" : "NOT met"} (+${mib(overIdle)} over ${mib(atStart.rss)}).`,
  );
} finally {
  await scratch.cleanup();
  await target.cleanup();
}
