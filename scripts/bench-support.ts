// Shared pieces of the benchmark scripts: timing loops, statistics, a raw JSON-RPC stdio driver,
// a host binary to measure, and markdown output. Benchmarks are scripts, never tests.

import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { resolvePython } from "../src/discover/resolve-python.ts";
import { makeFixtureConda } from "../test/support/make-fixture-conda.ts";
import { compileBinary } from "./build.ts";

/** Order statistics of one measured quantity, in the unit it was sampled in. */
export interface Stats {
  n: number;
  min: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentile of already sorted samples. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new Error("no samples");
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

/** min, p50 (median), p99, max and mean of the samples. */
export function summarize(samples: readonly number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    min: sorted[0] as number,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] as number,
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
  };
}

/**
 * Runs each named case `warmup` times unmeasured, then `runs` times measured, interleaving the
 * cases round by round so drift on a shared machine hits them alike. Each round starts one case
 * further on, so no case always runs right after the same other one (whose exit may still hold a
 * core). Each run returns its own figure (usually milliseconds).
 */
export async function sampleInterleaved(
  cases: Record<string, () => Promise<number>>,
  options: { warmup: number; runs: number },
): Promise<Record<string, Stats>> {
  const names = Object.keys(cases);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < options.warmup + options.runs; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length] as string;
      const value = await (cases[name] as () => Promise<number>)();
      if (round >= options.warmup) samples[name]?.push(value);
    }
  }
  return Object.fromEntries(names.map((n) => [n, summarize(samples[n] ?? [])]));
}

/** Milliseconds with one decimal. */
export function ms(value: number): string {
  return value >= 100 ? value.toFixed(0) : value.toFixed(1);
}

/** A difference in ms with its sign (`+3.2`, `−1.3`). */
export function signedMs(value: number): string {
  return `${value < 0 ? "−" : "+"}${ms(Math.abs(value))}`;
}

/** `value / floor` as `×N.NN`. */
export function ratio(value: number, floor: number): string {
  return `×${(value / floor).toFixed(2)}`;
}

/** A markdown table; cells are taken verbatim. */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** One line naming the date, machine and runtime the figures come from. */
export function machineLine(): string {
  const cpu = cpus();
  const date = new Date().toISOString().slice(0, 10);
  return `${date}, ${cpu.length} cores (${cpu[0]?.model.trim() ?? "unknown CPU"}), ${process.platform}-${process.arch}, bun ${Bun.version}`;
}

/** Fails loudly when the promise has not settled within `ms`. */
export async function deadline<T>(promise: Promise<T>, limitMs: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${limitMs} ms`)), limitMs);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** A temporary folder for one benchmark run, removed by cleanup(). */
export async function benchDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "conda-mcp-bench-"));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * The compiled binary to measure: `--binary PATH` from argv if given, otherwise a fresh host
 * build (the default release flags) in `dir`.
 */
export async function binaryUnderTest(argv: readonly string[], dir: string): Promise<string> {
  const i = argv.indexOf("--binary");
  if (i >= 0) {
    const path = argv[i + 1];
    if (!path) throw new Error("--binary needs a path");
    return path;
  }
  const path = join(dir, "conda-mcp");
  await compileBinary(null, true, path);
  return path;
}

/**
 * Compiles a one-line script that prints `hello` with `statement` (default console.log), with
 * the release build's flags, as `dir/<name>.ts` and `dir/<name>`.
 */
export async function helloWorld(
  dir: string,
  name = "hello",
  statement = 'console.log("hello");',
): Promise<{ source: string; binary: string }> {
  const source = join(dir, `${name}.ts`);
  await writeFile(source, `${statement}\n`);
  const binary = join(dir, name);
  await compileBinary(null, true, binary, process.execPath, source);
  return { source, binary };
}

/** Spawn → first stdout line: the start-up floor of any program that answers on stdout. */
export async function timeFirstLine(
  command: readonly string[],
  env: Record<string, string>,
  stdin?: string,
): Promise<number> {
  const started = performance.now();
  const proc = Bun.spawn([...command], {
    env,
    stdin: stdin === undefined ? "ignore" : new Blob([stdin]),
    stdout: "pipe",
    stderr: "ignore",
  });
  const reader = proc.stdout.getReader();
  const first = await deadline(reader.read(), 60_000, command.join(" "));
  const elapsed = performance.now() - started;
  if (first.done) throw new Error(`${command.join(" ")} printed nothing`);
  while (!(await reader.read()).done) {}
  await deadline(proc.exited, 60_000, `${command.join(" ")} exit`);
  return elapsed;
}

/** Spawn → stdout read to its end → exit, the way a direct (non-MCP) caller runs a program. */
export async function timeRun(
  command: readonly string[],
  env: Record<string, string>,
  stdin?: string,
): Promise<{ ms: number; stdout: string; exitCode: number }> {
  const started = performance.now();
  const proc = Bun.spawn([...command], {
    env,
    stdin: stdin === undefined ? "ignore" : new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, , exitCode] = await deadline(
    Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]),
    120_000,
    command.join(" "),
  );
  return { ms: performance.now() - started, stdout, exitCode };
}

/** A server started with raw JSON-RPC over its stdio, no SDK on the client side. */
export interface RawSession {
  pid: number;
  /** Sends a request and resolves with the raw response line and its parsed message. */
  request(method: string, params: unknown): Promise<{ line: string; message: RpcMessage }>;
  notify(method: string, params: unknown): void;
  /** Closes stdin (the server's signal to exit) and waits for the exit. */
  close(): Promise<number>;
  stderr(): string;
}

/** A JSON-RPC response as read from the server. */
export interface RpcMessage {
  id?: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** Spawns a stdio MCP server and speaks newline-delimited JSON-RPC to it. */
export function rawSession(command: readonly string[], env: Record<string, string>): RawSession {
  const proc = Bun.spawn([...command], { env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const pending = new Map<number, (reply: { line: string; message: RpcMessage }) => void>();
  let stderr = "";
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr) stderr += decoder.decode(chunk, { stream: true });
  })();
  void (async () => {
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of proc.stdout) {
      buffered += decoder.decode(chunk, { stream: true });
      for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        const message = JSON.parse(line) as RpcMessage;
        if (typeof message.id === "number") pending.get(message.id)?.({ line, message });
      }
    }
  })();
  let nextId = 1;
  const send = (payload: object) => {
    proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...payload })}\n`);
    proc.stdin.flush();
  };
  return {
    pid: proc.pid,
    request(method, params) {
      const id = nextId++;
      const reply = new Promise<{ line: string; message: RpcMessage }>((resolve) =>
        pending.set(id, resolve),
      );
      send({ id, method, params });
      return deadline(
        Promise.race([
          reply,
          proc.exited.then((code) => {
            throw new Error(`server exited with ${code} before answering ${method}:\n${stderr}`);
          }),
        ]),
        120_000,
        method,
      );
    },
    notify(method, params) {
      send({ method, params });
    },
    async close() {
      proc.stdin.end();
      try {
        return await deadline(proc.exited, 10_000, "exit after stdin closed");
      } catch (error) {
        proc.kill("SIGKILL");
        throw error;
      }
    },
    stderr: () => stderr,
  };
}

/** MCP `initialize` parameters of the benchmark client. */
export const INITIALIZE_PARAMS = {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "conda-mcp-bench", version: "0.0.0" },
};

/** Opens an MCP session: `initialize`, then the `initialized` notification. */
export async function initialize(session: RawSession): Promise<void> {
  const { message } = await session.request("initialize", INITIALIZE_PARAMS);
  if (!message.result) throw new Error(`initialize failed: ${JSON.stringify(message.error)}`);
  session.notify("notifications/initialized", {});
}

/**
 * Spawn → `initialize` → `tools/list` answered, in milliseconds, with the size of the
 * `tools/list` response line; the server is then closed (not timed).
 */
export async function timeToToolsList(
  command: readonly string[],
  env: Record<string, string>,
): Promise<{ ms: number; responseBytes: number; tools: unknown[] }> {
  const started = performance.now();
  const session = rawSession(command, env);
  await initialize(session);
  const { line, message } = await session.request("tools/list", {});
  const elapsed = performance.now() - started;
  const code = await session.close();
  if (!message.result || code !== 0) {
    throw new Error(
      `tools/list failed (exit ${code}): ${JSON.stringify(message.error)}\n${session.stderr()}`,
    );
  }
  return {
    ms: elapsed,
    responseBytes: Buffer.byteLength(line),
    tools: message.result.tools as unknown[],
  };
}

/**
 * Spawn → `initialize` → `tools/list` → `tools/call conda_info {"json": true}` answered, sent
 * back to back as a client that calls at once would: the milliseconds from the spawn, from
 * sending the call, and the server's share of the call (from sending it, minus conda's own run
 * as the server timed it, spawn to exit).
 */
export async function timeToFirstCall(
  command: readonly string[],
  env: Record<string, string>,
): Promise<{ fromSpawn: number; call: number; share: number }> {
  const started = performance.now();
  const session = rawSession(command, env);
  await initialize(session);
  await session.request("tools/list", {});
  const sent = performance.now();
  const { message } = await session.request("tools/call", {
    name: "conda_info",
    arguments: { json: true },
  });
  const answered = performance.now();
  const code = await session.close();
  const result = message.result as
    | { structuredContent?: { exit_code?: number; duration_ms?: number } }
    | undefined;
  const structured = result?.structuredContent;
  if (structured?.exit_code !== 0 || code !== 0) {
    throw new Error(`conda_info failed (exit ${code}): ${JSON.stringify(message)}`);
  }
  const call = answered - sent;
  return { fromSpawn: answered - started, call, share: call - (structured.duration_ms ?? 0) };
}

/** Reads `conda://capabilities` from a server started with `command`. */
export async function readCapabilities(
  command: readonly string[],
  env: Record<string, string>,
): Promise<Record<string, unknown>> {
  const session = rawSession(command, env);
  try {
    await initialize(session);
    const { message } = await session.request("resources/read", { uri: "conda://capabilities" });
    const contents = message.result?.contents as { text: string }[] | undefined;
    if (!contents?.[0]) throw new Error(`resources/read failed: ${JSON.stringify(message.error)}`);
    return JSON.parse(contents[0].text) as Record<string, unknown>;
  } finally {
    await session.close();
  }
}

/** Peak and current resident set size of a process, from /proc (Linux only), in bytes. */
export async function memoryOf(pid: number): Promise<{ hwm: number; rss: number }> {
  const status = await Bun.file(`/proc/${pid}/status`).text();
  const kib = (field: string) => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status);
    if (!match) throw new Error(`/proc/${pid}/status has no ${field}`);
    return Number(match[1]) * 1024;
  };
  return { hwm: kib("VmHWM"), rss: kib("VmRSS") };
}

/** Bytes as MiB with one decimal, or whole GiB. */
export function mib(bytes: number): string {
  if (bytes >= 2 ** 30 && bytes % 2 ** 30 === 0) return `${bytes / 2 ** 30} GiB`;
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

/** Bytes per second as MiB/s or GiB/s. */
export function throughput(bytes: number, milliseconds: number): string {
  const perSecond = bytes / (milliseconds / 1000);
  return perSecond >= 2 ** 30
    ? `${(perSecond / 2 ** 30).toFixed(2)} GiB/s`
    : `${(perSecond / 2 ** 20).toFixed(0)} MiB/s`;
}

/** The conda a benchmark measures against, with a private environment to run it in. */
export interface BenchConda {
  /** "real conda 26.7.2 (...)" or "fixture conda": goes into the printed figures. */
  label: string;
  condaExe: string;
  python: string;
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

const KIT_BUILD = join(import.meta.dir, "..", "..", "shared", "real-conda", "build.sh");

/**
 * The conda to measure: `--conda PATH` (or $CONDA_MCP_BENCH_CONDA) when given; else a real conda built from the team's kit
 * beside the repository (`../shared/real-conda`, about 20 s); else the fixture conda, said so in
 * the label. Every conda process gets a private HOME, envs and pkgs folder.
 */
export async function benchConda(argv: readonly string[]): Promise<BenchConda> {
  const at = argv.indexOf("--conda");
  const dir = await mkdtemp(join(tmpdir(), "conda-mcp-bench-conda-"));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  let condaExe = at >= 0 ? (argv[at + 1] ?? "") : (process.env.CONDA_MCP_BENCH_CONDA ?? "");
  if (at >= 0 && !condaExe) throw new Error("--conda needs a path");
  if (!condaExe && existsSync(KIT_BUILD)) {
    process.stderr.write(`building the real conda from ${KIT_BUILD} ...\n`);
    const kit = join(dir, "kit");
    const built = Bun.spawnSync(["bash", KIT_BUILD, kit], { stdout: "ignore", stderr: "pipe" });
    if (built.exitCode !== 0) throw new Error(`the kit failed: ${built.stderr.toString()}`);
    condaExe = join(kit, "bin", "conda");
  }
  if (!condaExe) {
    const fixture = await makeFixtureConda();
    await cleanup();
    return { label: "fixture conda", ...fixture };
  }
  const home = join(dir, "home");
  await mkdir(home, { recursive: true });
  const env: Record<string, string> = {
    HOME: home,
    PATH: "/usr/local/bin:/usr/bin:/bin",
    LANG: "C.UTF-8",
    CONDA_ENVS_DIRS: join(dir, "envs"),
    CONDA_PKGS_DIRS: join(dir, "pkgs"),
  };
  const { python } = await resolvePython(condaExe, {
    env,
    platform: process.platform,
    timeoutMs: 60_000,
  });
  const version = Bun.spawnSync([condaExe, "--version"], { env }).stdout.toString().trim();
  return { label: `real ${version}`, condaExe, python, env, cleanup };
}
