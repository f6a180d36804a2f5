/** What one short helper process did; the first reason it stopped wins. */
export interface CapturedRun {
  /** Exit code, or null when it was killed or never started. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Why it could not be started (e.g. the interpreter does not exist), else null. */
  spawnError: string | null;
  durationMs: number;
}

/** Options of {@link runCaptured}. */
export interface RunCapturedOptions {
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
  timeoutMs: number;
  /** Text written to the child's stdin, which is then closed; stdin is ignored without it. */
  stdin?: string;
  /** Bytes kept per stream; the rest is read and dropped so the child never blocks. */
  maxBytes?: number;
}

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
// After a kill, how long pipes held open by surviving grandchildren may delay the result.
const DRAIN_GRACE_MS = 2000;

/**
 * Run a helper by argv (never a shell) with stdout and stderr read concurrently; past the
 * deadline the whole process group is killed (Unix: the child leads its own group).
 */
export async function runCaptured(
  argv: string[],
  options: RunCapturedOptions,
): Promise<CapturedRun> {
  const started = performance.now();
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env)) {
    if (value !== undefined) env[key] = value;
  }
  const groupKill = options.platform !== "win32";
  let proc: Bun.Subprocess<"pipe" | "ignore", "pipe", "pipe">;
  try {
    proc = Bun.spawn(argv, {
      env,
      stdin: options.stdin === undefined ? "ignore" : "pipe",
      stdout: "pipe",
      stderr: "pipe",
      detached: groupKill,
    });
  } catch (error) {
    return {
      exitCode: null,
      stdout: "",
      stderr: "",
      timedOut: false,
      spawnError: error instanceof Error ? error.message : String(error),
      durationMs: performance.now() - started,
    };
  }

  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const stdoutReader = proc.stdout.getReader();
  const stderrReader = proc.stderr.getReader();
  const work = Promise.all([
    readCapped(stdoutReader, maxBytes),
    readCapped(stderrReader, maxBytes),
    proc.exited,
  ]);

  let timedOut = false;
  let onKilled: () => void = () => {};
  const killed = new Promise<"killed">((resolve) => {
    onKilled = () => resolve("killed");
  });
  const timer = setTimeout(() => {
    timedOut = true;
    killTree(proc.pid, groupKill, () => proc.kill("SIGKILL"));
    onKilled();
  }, options.timeoutMs);

  // Readers and the deadline start first: a child may write before reading all its input.
  if (options.stdin !== undefined && proc.stdin) {
    const sink = proc.stdin;
    // A child that exits without reading its input breaks the pipe (EPIPE); its exit status
    // tells the story, so write failures are ignored.
    try {
      await Promise.resolve(sink.write(options.stdin)).catch(() => 0);
      await Promise.resolve(sink.end()).catch(() => 0);
    } catch {
      // Synchronous EPIPE: same as above.
    }
  }

  let outcome = await Promise.race([work, killed]);
  if (outcome === "killed") {
    // Surviving grandchildren may hold the pipes open: wait briefly, then stop reading.
    const late = Bun.sleep(DRAIN_GRACE_MS).then(() => "late" as const);
    const drained = await Promise.race([work, late]);
    if (drained === "late") {
      await Promise.allSettled([stdoutReader.cancel(), stderrReader.cancel()]);
    }
    outcome = await work;
  }
  clearTimeout(timer);
  const [stdout, stderr, code] = outcome;
  return {
    exitCode: timedOut ? null : code,
    stdout,
    stderr,
    timedOut,
    spawnError: null,
    durationMs: performance.now() - started,
  };
}

function killTree(pid: number, groupKill: boolean, fallback: () => void): void {
  if (groupKill) {
    try {
      process.kill(-pid, "SIGKILL");
      return;
    } catch {
      // The group is already gone or was never created; kill the child itself.
    }
  }
  try {
    fallback();
  } catch {
    // Already exited.
  }
}

interface ChunkReader {
  read(): Promise<{ done: boolean; value?: Uint8Array | undefined }>;
}

async function readCapped(reader: ChunkReader, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let kept = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || !value) break;
      if (kept < maxBytes) {
        const slice = value.subarray(0, maxBytes - kept);
        chunks.push(slice);
        kept += slice.byteLength;
      }
    }
  } catch {
    // A cancelled or broken pipe ends the stream; keep what arrived.
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
