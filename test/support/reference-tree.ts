import { join } from "node:path";
import type { IntrospectionResult } from "../../src/introspection-payload.ts";

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

/**
 * The recorded argparse tree of a real conda 26.7, in the introspection output's shape. The dump
 * predates `pre_parser`: conda 26.7 builds its root parser on its pre-parser and adds only
 * `-h`, `-V` and the subcommands, so the pre-parser's options are the root's other options.
 */
export async function loadReferenceTree(): Promise<IntrospectionResult> {
  const dump = (await Bun.file(REFERENCE_TREE_FILE).json()) as IntrospectionResult;
  const preParsed = dump.tree.actions.filter(
    (a) => a.option_strings.length > 0 && !["-h", "-V"].includes(a.option_strings[0] ?? ""),
  );
  return {
    ...dump,
    ok: true,
    site_dirs: [],
    root_prefix: "/opt/conda",
    envs_dirs: ["/opt/conda/envs"],
    pre_parser: {
      option_strings: preParsed.flatMap((a) => a.option_strings),
      allow_abbrev: true,
      prefix_chars: "-",
    },
  };
}
