import { type ResolvedPython, type ResolvePythonOptions, resolvePython } from "./resolve-python.ts";
import { type SpawnedIntrospection, spawnIntrospection } from "./spawn-introspection.ts";

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
