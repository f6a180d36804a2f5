import { computeFingerprint } from "./compute-fingerprint.ts";
import { findConda, type Which } from "./find-conda.ts";
import { introspect } from "./introspect.ts";
import type { IntrospectionResult } from "./raw-tree.ts";
import { type PythonSource, resolvePython } from "./resolve-python.ts";

/** Options of {@link discover}. */
export interface DiscoverOptions {
  /** `--conda PATH`, or null to try CONDA_EXE and then PATH. */
  explicitPath?: string | null;
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  /** Deadline for each call into the target's Python. */
  timeoutMs: number;
  which?: Which;
}

/** Everything later stages need to know about the user's conda. */
export interface Discovery {
  /** The conda executable that will be run. */
  executable: string;
  /** The interpreter that runs it. */
  python: string;
  pythonSource: PythonSource;
  /** argv prefix that runs conda: `[executable]`, or `[python, "-m", "conda"]` in dev setups. */
  condaArgv: string[];
  introspection: IntrospectionResult;
  /** Changes when conda, its interpreter or its plugins change (see computeFingerprint). */
  fingerprint: string;
  /** Wall time spent in the target's Python. */
  pythonMs: number;
}

/** Find conda and its Python, introspect its parser tree and fingerprint the installation. */
export async function discover(options: DiscoverOptions): Promise<Discovery> {
  const env = { ...options.env };
  const { platform, timeoutMs } = options;
  const executable = findConda({
    explicitPath: options.explicitPath ?? null,
    env,
    platform,
    ...(options.which ? { which: options.which } : {}),
  });
  const resolved = await resolvePython(executable, {
    env,
    platform,
    timeoutMs,
    ...(options.which ? { which: options.which } : {}),
  });
  const started = performance.now();
  const introspection = await introspect(resolved.python, { env, platform, timeoutMs });
  const introspectMs = performance.now() - started;
  const fingerprint = await computeFingerprint({
    executable,
    python: resolved.python,
    siteDirs: introspection.site_dirs,
    condaVersion: introspection.conda_version,
  });
  return {
    executable,
    python: resolved.python,
    pythonSource: resolved.source,
    condaArgv: resolved.condaArgv,
    introspection,
    fingerprint,
    pythonMs: resolved.pythonMs + introspectMs,
  };
}
