import { join } from "node:path";
import type { IntrospectionResult } from "../../src/discover/raw-tree.ts";

/**
 * A recorded argparse tree of a real conda 26.7 (external plugins disabled), copied into the
 * repository from the team's reference material so that tests need nothing beside the clone.
 */
export const REFERENCE_TREE_FILE = join(
  import.meta.dir,
  "..",
  "fixtures",
  "conda-26.7-parser-tree.json",
);

/** The recorded argparse tree of a real conda 26.7, in the introspection output's shape. */
export async function loadReferenceTree(): Promise<IntrospectionResult> {
  const dump = await Bun.file(REFERENCE_TREE_FILE).json();
  return {
    ok: true,
    site_dirs: [],
    root_prefix: "/opt/conda",
    envs_dirs: ["/opt/conda/envs"],
    ...dump,
  } as IntrospectionResult;
}
