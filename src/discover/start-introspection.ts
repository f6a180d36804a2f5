import { pythonScriptEnv } from "../execute/launch.ts";
import { runProcess } from "../execute/run-process.ts";
import type { ExecutionResult } from "../result/execution-result.ts";
import introspectSource from "./introspect.py" with { type: "text" };
import { type ResolvedPython, type ResolvePythonOptions, resolvePython } from "./resolve-python.ts";

/** An introspection a start set going before anything else (see startIntrospection). */
export interface StartedIntrospection {
  /** The conda executable it introspects. */
  executable: string;
  /** The interpreter found and introspect.py spawned under it; rejects as resolvePython does. */
  running: Promise<{ resolved: ResolvedPython; spawned: SpawnedIntrospection }>;
}

/** Finds the Python behind the conda `executable` and spawns introspect.py under it at once. */
export function startIntrospection(
  executable: string,
  options: ResolvePythonOptions,
): StartedIntrospection {
  const running = resolvePython(executable, options).then((resolved) => ({
    resolved,
    spawned: spawnIntrospection(resolved.python, options),
  }));
  return { executable, running };
}

/** Options of {@link spawnIntrospection}. */
export interface SpawnIntrospectionOptions {
  /** The environment conda will run with (it decides plugins, condarc, cache paths). */
  env: Readonly<Record<string, string | undefined>>;
  timeoutMs: number;
  platform: NodeJS.Platform;
}

/** introspect.py running under the target's Python, its stdout kept until a reader takes it. */
export interface SpawnedIntrospection {
  /** The run, settled once Python has exited (or been ended). */
  running: Promise<ExecutionResult>;
  /** Gives stdout to `push`: what came before at once, then each chunk as it comes. */
  read(push: (chunk: Uint8Array) => void): void;
  /** Ends the run: the interpreter, and anything it started, is killed. */
  abandon(): void;
  /** When Python was spawned (performance.now()). */
  spawnedAt: number;
}

/** Bytes of introspect.py's stdout read at most: the largest tree dump seen is ~2 MB. */
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;

/**
 * Spawns the embedded introspection script under `python` (`python -B -`, the source on stdin,
 * no shell) at once, before the modules that read its document load (see introspect).
 */
export function spawnIntrospection(
  python: string,
  options: SpawnIntrospectionOptions,
): SpawnedIntrospection {
  const early: Uint8Array[] = [];
  let push: ((chunk: Uint8Array) => void) | null = null;
  const abandon = new AbortController();
  const spawnedAt = performance.now();
  const running = runProcess(
    {
      command: python,
      argv: ["-B", "-"],
      stdin: INTROSPECT_SOURCE,
      env: pythonScriptEnv(options.env),
    },
    {
      platform: options.platform,
      timeoutMs: options.timeoutMs,
      maxOutputBytes: MAX_DOCUMENT_BYTES,
      // A chunk is another's to release once seen: one kept for a later reader is a copy.
      onStdout: (chunk) => (push ? push(chunk) : early.push(chunk.slice())),
      signal: abandon.signal,
    },
  );
  return {
    running,
    read(reader) {
      for (const chunk of early.splice(0)) reader(chunk);
      push = reader;
    },
    abandon: () => abandon.abort(),
    spawnedAt,
  };
}

/** The embedded introspection script, as the target's Python receives it on stdin. */
export const INTROSPECT_SOURCE: string = introspectSource;
