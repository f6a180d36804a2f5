import { type IntrospectOptions, introspect } from "../../src/discover/introspect.ts";
import {
  type SpawnIntrospectionOptions,
  spawnIntrospection,
} from "../../src/discover/start-introspection.ts";
import type { IntrospectionDocument } from "../../src/introspection-payload.ts";

/** Spawns introspect.py under `python` and reads its document, as a start does in two steps. */
export function introspectPython(
  python: string,
  options: SpawnIntrospectionOptions & IntrospectOptions,
): Promise<IntrospectionDocument> {
  return introspect(spawnIntrospection(python, options), options);
}
