import { join } from "node:path";
import type { IntrospectionResult } from "../../src/discover/raw-tree.ts";

/** The folder of shared reference material beside the repository (present in CI and sessions). */
export const REFERENCE_DIR = join(import.meta.dir, "..", "..", "..", "shared", "reference");

/** The recorded argparse tree of a real conda 26.7, in the introspection output's shape. */
export async function loadReferenceTree(): Promise<IntrospectionResult> {
  const dump = await Bun.file(join(REFERENCE_DIR, "conda-26.7-parser-tree.json")).json();
  return {
    ok: true,
    site_dirs: [],
    root_prefix: "/opt/conda",
    envs_dirs: ["/opt/conda/envs"],
    ...dump,
  } as IntrospectionResult;
}
