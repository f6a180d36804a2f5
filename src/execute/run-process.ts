import { existsSync, readdirSync, readFileSync } from "node:fs";
import { type ExecutionResult, parseJsonOutput } from "../result/execution-result.ts";
import { killProcessTree } from "./kill-process-tree.ts";
import { resolveLaunch } from "./launch.ts";
import { readCapped } from "./read-capped.ts";

/** What to run: an executable path and its arguments, never a shell line. */
export interface RunRequest {
  command: string;
  argv: readonly string[];
  cwd?: string;
  /** Text for the child's stdin (bounded by the caller); without it the child reads EOF at once. */
  stdin?: string;
  /** The child's complete environment (nothing is inherited implicitly). */
  env: Readonly<Record<string, string>>;
}

/** A sign of life sent while a process runs. */
export interface Heartbeat {
  elapsedMs: number;
  lastStderrLine: string | null;
}

/** How to run: limits, cancellation and progress. */
export interface RunOptions {
  platform: NodeJS.Platform;
  timeoutMs: number;
  /** Kept per stream; the rest is drained and dropped. */
  maxOutputBytes: number;
  /** Time between SIGTERM and SIGKILL of the process group. */
  graceMs?: number;
  /** After the child exits, how long to wait for output pipes still held open by others. */
  drainMs?: number;
  signal?: AbortSignal;
  onHeartbeat?: (heartbeat: Heartbeat) => void;
  heartbeatMs?: number;
  /** Sees each stdout chunk as it arrives (before a dropped one is released: copy to keep). */
  onStdout?: (chunk: Uint8Array) => void;
}

/** Default time between SIGTERM and SIGKILL. */
export const DEFAULT_GRACE_MS = 3000;
/** Default bound on reading pipes that outlive the child. */
export const DEFAULT_DRAIN_MS = 2000;
/** Default time between heartbeats. */
export const DEFAULT_HEARTBEAT_MS = 5000;

const POLL_MS = 50;
// Once no process of the group is left, pipes still open are held by a process that left the
// group (a daemon): what was written before is already buffered and arrives within this quiet.
const QUIET_MS = 100;
const EXIT_AFTER_KILL_MS = 5000;
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Runs a program by argv with capped output, a timeout and cancellation that end its whole
 * process tree, and returns one result value whatever happens (spawn failures included).
 */
export async function runProcess(
  request: RunRequest,
  options: RunOptions,
): Promise<ExecutionResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const name = programName(request.command);
  if (options.signal?.aborted) return notRunResult(elapsed(), { reason: "cancelled" });

  const spawned = spawnChild(request, options);
  if (typeof spawned === "string") {
    return notRunResult(elapsed(), {
      reason: "not_started",
      detail: `could not start ${name}: ${spawned}`,
    });
  }
  const child = spawned;

  const { stdout, stderr, lastChunkAt, lastStderrLine } = readOutputs(child, options);

  const hasExited = () => child.exitCode !== null || child.signalCode !== null;
  const stop = stopper(hasExited);
  let killed = false;
  const unwatch = watchLimits(options, stop.stopFor, () => ({
    elapsedMs: elapsed(),
    lastStderrLine: lastStderrLine(),
  }));

  try {
    await Promise.race([child.exited, stop.stopped]);
    if (stop.reason() !== null) {
      killed = await terminateTree(child.pid, hasExited, options, request.env);
      await withDeadline(child.exited, EXIT_AFTER_KILL_MS);
    }
    await drainPipes(Promise.all([stdout.result, stderr.result]), {
      pid: child.pid,
      platform: options.platform,
      drainMs: options.drainMs ?? DEFAULT_DRAIN_MS,
      lastChunkAt,
    });
  } finally {
    stdout.stop();
    stderr.stop();
    unwatch();
  }

  return resultOf(child, {
    name,
    stopReason: stop.reason(),
    killed,
    out: await stdout.result,
    err: await stderr.result,
    durationMs: elapsed(),
  });
}

type Child = Bun.Subprocess<"ignore" | Uint8Array, "pipe", "pipe">;
type Stop = "timed_out" | "cancelled";

/** Why the server stopped a run: the first reason wins, and a child that exited keeps its code. */
function stopper(hasExited: () => boolean) {
  let reason: Stop | null = null;
  const stopped = Promise.withResolvers<void>();
  return {
    stopFor(why: Stop) {
      if (reason !== null || hasExited()) return;
      reason = why;
      stopped.resolve();
    },
    stopped: stopped.promise,
    reason: () => reason,
  };
}

/** Reads both pipes, capped, noting when output last came and stderr's latest line. */
function readOutputs(child: Child, options: RunOptions) {
  let lastChunkAt = performance.now();
  const tracker = createLastLineTracker();
  const stdout = readCapped(child.stdout, options.maxOutputBytes, (chunk) => {
    lastChunkAt = performance.now();
    options.onStdout?.(chunk);
  });
  const stderr = readCapped(child.stderr, options.maxOutputBytes, (chunk) => {
    lastChunkAt = performance.now();
    tracker.push(chunk);
  });
  return { stdout, stderr, lastChunkAt: () => lastChunkAt, lastStderrLine: () => tracker.line() };
}

/** The one result of a run that started, from how it ended and what it printed. */
function resultOf(
  child: Child,
  run: {
    name: string;
    stopReason: Stop | null;
    killed: boolean;
    out: { text: string; truncated: boolean };
    err: { text: string; truncated: boolean };
    durationMs: number;
  },
): ExecutionResult {
  const { stopReason, out, err } = run;
  // Killed by a signal we did not send (a crash, the OOM killer, another program).
  const signalled = stopReason === null && child.exitCode === null && child.signalCode !== null;
  return {
    exit_code: stopReason === null ? child.exitCode : null,
    stop_reason: stopReason ?? (signalled ? "signal" : "exited"),
    stop_detail: signalled ? `${run.name} was killed by signal ${child.signalCode}` : null,
    stdout: out.text,
    stderr: err.text,
    duration_ms: run.durationMs,
    parsed_json: parseJsonOutput(out.text, out.truncated),
    timed_out: stopReason === "timed_out",
    cancelled: stopReason === "cancelled",
    stdout_truncated: out.truncated,
    stderr_truncated: err.truncated,
    restart_required: false,
    killed: run.killed,
  };
}

/** Starts the program in its own process group, or says why it could not be started. */
function spawnChild(request: RunRequest, options: RunOptions): Child | string {
  const launch = resolveLaunch(request.command, request.argv, options.platform, request.env);
  if (!launch.ok) return launch.message;
  try {
    return Bun.spawn({
      cmd: launch.cmd,
      cwd: request.cwd,
      env: { ...request.env },
      // Never our own stdin/stdout: they carry the MCP stream.
      stdin: request.stdin === undefined ? "ignore" : new TextEncoder().encode(request.stdin),
      stdout: "pipe",
      stderr: "pipe",
      // POSIX: setsid, so the child leads a new process group that we can signal as a whole.
      // Windows: detaching would give console grandchildren their own visible console windows.
      detached: options.platform !== "win32",
      windowsHide: true,
      windowsVerbatimArguments: launch.windowsVerbatimArguments,
    });
  } catch (error) {
    return describeSpawnError(error, request.cwd);
  }
}

/** Arms the timeout, the cancellation and the heartbeat of one run; returns their disarm. */
function watchLimits(
  options: RunOptions,
  stopFor: (reason: Stop) => void,
  beat: () => Heartbeat,
): () => void {
  const onAbort = () => stopFor("cancelled");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const timeout = Number.isFinite(options.timeoutMs)
    ? setTimeout(() => stopFor("timed_out"), Math.min(Math.max(options.timeoutMs, 0), MAX_TIMER_MS))
    : undefined;
  const onHeartbeat = options.onHeartbeat;
  const heartbeat = onHeartbeat
    ? setInterval(() => {
        try {
          onHeartbeat(beat());
        } catch {
          // A failing listener must not break the run.
        }
      }, options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS)
    : undefined;
  return () => {
    clearTimeout(timeout);
    clearInterval(heartbeat);
    options.signal?.removeEventListener("abort", onAbort);
  };
}

// SIGTERM the group, give it graceMs to end, then SIGKILL whatever is left (on Windows,
// taskkill /T /F ends the tree at once). True when something had to be killed.
async function terminateTree(
  pid: number,
  hasExited: () => boolean,
  options: RunOptions,
  env: Readonly<Record<string, string>>,
): Promise<boolean> {
  await killProcessTree(pid, "SIGTERM", options.platform, env);
  if (options.platform === "win32") return true;
  const graceEnd = performance.now() + (options.graceMs ?? DEFAULT_GRACE_MS);
  while (performance.now() < graceEnd) {
    if (hasExited() && !isGroupAlive(pid, options.platform)) return false;
    await sleep(POLL_MS);
  }
  await killProcessTree(pid, "SIGKILL", options.platform, env);
  return true;
}

// Reading a pipe to its end also waits for every process that inherited it. After the child
// exits, stop once nothing of its group is left and the pipes went quiet, or after drainMs.
async function drainPipes(
  readers: Promise<unknown>,
  how: {
    pid: number;
    platform: NodeJS.Platform;
    drainMs: number;
    lastChunkAt: () => number;
  },
): Promise<void> {
  let finished = false;
  readers.then(() => {
    finished = true;
  });
  const end = performance.now() + how.drainMs;
  for (;;) {
    await Promise.race([readers, sleep(POLL_MS)]);
    if (finished) return;
    const now = performance.now();
    if (now >= end) return;
    const quiet = now - how.lastChunkAt() >= QUIET_MS;
    if (quiet && how.platform !== "win32" && !isGroupAlive(how.pid, how.platform)) return;
  }
}

// Names the cause without the server's paths.
function describeSpawnError(error: unknown, cwd: string | undefined): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return cwd !== undefined && !existsSync(cwd)
        ? "the working directory does not exist (ENOENT)"
        : "the program was not found (ENOENT)";
    case "EACCES":
      return "permission denied (EACCES)";
    case undefined:
      return "the system refused to start it";
    default:
      return `the system refused to start it (${code})`;
  }
}

function programName(command: string): string {
  return command.split(/[\\/]/).pop() || "the program";
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function withDeadline(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    promise,
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/**
 * Says whether a process group still has a live member. Zombies do not count: where init does
 * not reap orphans (some containers) killed grandchildren stay zombies forever. Windows has no
 * process groups: it answers true, so callers fall back to their time bound.
 */
export function isGroupAlive(pgid: number, platform: NodeJS.Platform): boolean {
  if (platform === "win32") return true;
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return platform === "linux" ? hasLiveMemberInProc(pgid) : true;
}

function hasLiveMemberInProc(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true;
  }
  return false;
}

const TAIL_BYTES = 2048;
const MAX_LINE_CHARS = 200;

/** Tracks the last line of a byte stream in constant memory, for progress heartbeats. */
export function createLastLineTracker(): {
  push(chunk: Uint8Array): void;
  line(): string | null;
} {
  let tail = new Uint8Array(0);
  return {
    push(chunk) {
      if (chunk.byteLength >= TAIL_BYTES) {
        tail = chunk.slice(chunk.byteLength - TAIL_BYTES);
        return;
      }
      const keep = Math.min(tail.byteLength, TAIL_BYTES - chunk.byteLength);
      const next = new Uint8Array(keep + chunk.byteLength);
      next.set(tail.subarray(tail.byteLength - keep));
      next.set(chunk, keep);
      tail = next;
    },
    line() {
      // Progress output rewrites a line with \r: the text after the last \r is what shows.
      const lines = new TextDecoder().decode(tail).split(/[\r\n]+/);
      for (let index = lines.length - 1; index >= 0; index -= 1) {
        const line = lines[index]?.trim();
        if (line) return line.length > MAX_LINE_CHARS ? line.slice(-MAX_LINE_CHARS) : line;
      }
      return null;
    },
  };
}

/** Why an execution never started: cancelled while it waited, or it could not be started. */
export type NotRun = { reason: "cancelled" } | { reason: "not_started"; detail: string };

/** The result of an execution that never started. */
export function notRunResult(durationMs: number, notRun: NotRun): ExecutionResult {
  return {
    exit_code: null,
    stop_reason: notRun.reason,
    stop_detail: notRun.reason === "not_started" ? notRun.detail : null,
    stdout: "",
    stderr: "",
    duration_ms: durationMs,
    parsed_json: null,
    timed_out: false,
    cancelled: notRun.reason === "cancelled",
    stdout_truncated: false,
    stderr_truncated: false,
    restart_required: false,
    killed: false,
  };
}
