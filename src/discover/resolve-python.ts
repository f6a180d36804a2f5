import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { CondaMcpError } from "../errors.ts";
import { definedEnv } from "../execute/launch.ts";
import { runProcess } from "../execute/run-process.ts";
import {
  detectBinaryFormat,
  isDirectory,
  parseShebang,
  readHead,
  type Which,
  whichOnPath,
} from "./find-conda.ts";

/** The Python that runs conda, and the argv prefix that runs conda itself. */
export interface ResolvedPython {
  python: string;
  source: PythonSource;
  /** `[condaExe]`, or `[python, "-m", "conda"]` when CONDA_EXE is the interpreter (`_CE_M=-m`). */
  condaArgv: string[];
  /** Wall time spent running conda to ask it (only the `shell-hook` fallback does). */
  pythonMs: number;
}

/** Options of {@link resolvePython}. */
export interface ResolvePythonOptions {
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
  /** Deadline of the last-resort `conda shell.posix hook` call. */
  timeoutMs: number;
  which?: Which;
}

const HEAD_BYTES = 4096;

/**
 * Find the interpreter behind a conda executable: `_CE_M=-m` (CONDA_EXE is Python), the
 * script's shebang (direct, `/usr/bin/env`, `/bin/sh` trampoline), the Windows launcher layout,
 * `CONDA_PYTHON_EXE`, `<prefix>/bin/python`, and last `conda shell.posix hook` run by argv.
 * A native binary with no Python beside it is a standalone conda: STANDALONE_CONDA.
 */
export async function resolvePython(
  condaExe: string,
  options: ResolvePythonOptions,
): Promise<ResolvedPython> {
  const { env, platform } = options;
  const found = (python: string, source: PythonSource): ResolvedPython => ({
    python,
    source,
    condaArgv: [condaExe],
    pythonMs: 0,
  });
  const launchedByCondaExe = env.CONDA_EXE ? sameFile(env.CONDA_EXE, condaExe) : false;

  if (env._CE_M === "-m" && launchedByCondaExe) {
    return {
      python: condaExe,
      source: "conda-exe-is-python",
      condaArgv: [condaExe, "-m", env._CE_CONDA || "conda"],
      pythonMs: 0,
    };
  }

  const head = readHead(condaExe, HEAD_BYTES);
  if (!head) {
    throw new CondaMcpError("The conda executable could not be read.", "PYTHON_NOT_FOUND");
  }
  const candidates = prefixPythonCandidates(realpathOr(condaExe), platform);
  const condaPythonExe =
    launchedByCondaExe && env.CONDA_PYTHON_EXE && isFile(env.CONDA_PYTHON_EXE)
      ? env.CONDA_PYTHON_EXE
      : null;

  const format = detectBinaryFormat(head);
  if (format) return fromNativeBinary(format, candidates, condaPythonExe, platform, found);
  const fromShebang = shebangPython(new TextDecoder().decode(head), options, found);
  if (fromShebang) return fromShebang;
  if (condaPythonExe) return found(condaPythonExe, "conda-python-exe");
  for (const candidate of candidates) {
    if (isFile(candidate)) return found(candidate, "prefix");
  }

  return askShellHook(condaExe, options, found);
}

type Found = (python: string, source: PythonSource) => ResolvedPython;

/** A native conda binary: a Windows launcher for the prefix's python, or conda in a prefix. */
function fromNativeBinary(
  format: NonNullable<ReturnType<typeof detectBinaryFormat>>,
  candidates: string[],
  condaPythonExe: string | null,
  platform: NodeJS.Platform,
  found: Found,
): ResolvedPython {
  // Windows: Scripts\conda.exe is a launcher for <prefix>\python.exe. Elsewhere a native
  // conda is standalone unless it sits in a real conda prefix.
  const launcher = format === "pe" || platform === "win32";
  for (const candidate of candidates) {
    if (!isFile(candidate)) continue;
    if (launcher) return found(candidate, "windows-launcher");
    const prefix = path.dirname(path.dirname(candidate));
    if (isDirectory(path.join(prefix, "conda-meta"))) return found(candidate, "prefix");
  }
  if (launcher && condaPythonExe) return found(condaPythonExe, "conda-python-exe");
  throw new CondaMcpError(
    "This conda is a standalone binary with Python built in (no separate interpreter), so " +
      "its commands cannot be introspected. Point --conda at the conda of a conda " +
      "installation (e.g. Miniforge's <prefix>/bin/conda) instead.",
    "STANDALONE_CONDA",
  );
}

/** The interpreter a script's `#!` line names, when it exists. */
function shebangPython(
  head: string,
  options: ResolvePythonOptions,
  found: Found,
): ResolvedPython | null {
  const { env, platform } = options;
  const shebang = parseShebang(head);
  if (shebang?.kind === "direct" && isFile(shebang.interpreter)) {
    return found(shebang.interpreter, "shebang");
  }
  if (shebang?.kind === "sh-trampoline" && isFile(shebang.interpreter)) {
    return found(shebang.interpreter, "sh-trampoline");
  }
  if (shebang?.kind === "env") {
    const program = shebang.program.includes("/")
      ? shebang.program
      : (options.which ?? whichOnPath)(shebang.program, {
          path: env.PATH ?? "",
          pathExt: env.PATHEXT,
          platform,
        });
    if (program && isFile(program)) return found(program, "env-shebang");
  }

  return null;
}

/** Last resort: conda's own `shell.posix hook` names the interpreter it runs with. */
async function askShellHook(
  condaExe: string,
  options: ResolvePythonOptions,
  found: Found,
): Promise<ResolvedPython> {
  const { env, platform } = options;
  const hook = await runProcess(
    { command: condaExe, argv: ["shell.posix", "hook"], env: definedEnv(env) },
    { platform, timeoutMs: options.timeoutMs, maxOutputBytes: 1024 * 1024 },
  );
  const match = /^export CONDA_PYTHON_EXE=(?:'([^']*)'|"([^"]*)"|(\S+))/m.exec(hook.stdout);
  const hookPython = match ? (match[1] ?? match[2] ?? match[3]) : undefined;
  if (hook.exit_code === 0 && hookPython && isFile(hookPython)) {
    return { ...found(hookPython, "shell-hook"), pythonMs: hook.duration_ms };
  }
  throw new CondaMcpError(
    "Could not find the Python interpreter that runs conda: its script names no existing " +
      "interpreter, there is no python beside it, and `conda shell.posix hook` did not name " +
      "one. Set CONDA_PYTHON_EXE together with CONDA_EXE, or pass --conda with the conda of " +
      "a complete installation.",
    "PYTHON_NOT_FOUND",
  );
}

/**
 * Interpreters a conda executable's prefix would hold, from the executable's real path:
 * `<prefix>/bin/python` for `bin/` or `condabin/`, `<prefix>\python.exe` for `Scripts\`,
 * `condabin\` or `Library\bin\` on Windows.
 */
export function prefixPythonCandidates(condaRealPath: string, platform: NodeJS.Platform): string[] {
  if (platform === "win32") {
    const { basename, dirname, join } = path.win32;
    let prefix = dirname(dirname(condaRealPath));
    const folder = basename(dirname(condaRealPath)).toLowerCase();
    if (folder === "bin" && basename(prefix).toLowerCase() === "library") prefix = dirname(prefix);
    return [join(prefix, "python.exe")];
  }
  const { dirname, join } = path.posix;
  const prefix = dirname(dirname(condaRealPath));
  return [join(prefix, "bin", "python"), join(prefix, "bin", "python3")];
}

// The few stats here are synchronous: each trip through fs/promises' thread pool would delay
// conda's Python, which a cold start waits for, by a fraction of a millisecond.
function realpathOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

function sameFile(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    const [x, y] = [statSync(a), statSync(b)];
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** How the interpreter was found, most direct first. */
export const PYTHON_SOURCES = [
  "conda-exe-is-python",
  "shebang",
  "env-shebang",
  "sh-trampoline",
  "windows-launcher",
  "conda-python-exe",
  "prefix",
  "shell-hook",
] as const;
export type PythonSource = (typeof PYTHON_SOURCES)[number];
