import type { DiscoveredConda, Installation } from "../installation.ts";
import type { RawParser } from "../introspection-payload.ts";
import type { CachedDiscovery } from "./catalog-cache.ts";
import { watchFingerprint } from "./compute-fingerprint.ts";
import { expandParser } from "./expand-parser.ts";
import { scanCondaEntryPoints } from "./scan-conda-entry-points.ts";

/**
 * The tree and installation a discovery describes, fresh or restored from the cache. The tree
 * is put together when first read: a warm start whose catalog the snapshot recorded needs it
 * only for conda://capabilities.
 */
export function discoveredConda(
  executable: string,
  found: CachedDiscovery,
  source: Installation["source"],
): DiscoveredConda {
  const document = found.introspection;
  const { python } = found;
  const siteDirs = document.site_dirs;
  const condaVersion = document.conda_version;
  let tree: RawParser | null = null;
  return {
    get tree() {
      tree ??= expandParser(document.tree, document.actions);
      return tree;
    },
    preParser: document.pre_parser,
    installation: {
      executable,
      python,
      condaArgv: found.condaArgv,
      condaVersion,
      rootPrefix: document.root_prefix,
      envsDirs: document.envs_dirs,
      siteDirs,
      plugins: document.external_plugins,
      completionCacheDir: document.completion?.cache_dir ?? null,
      fingerprint: found.fingerprint,
      currentFingerprint: watchFingerprint({ executable, python, siteDirs, condaVersion }),
      currentPluginNames: () => scanCondaEntryPoints(siteDirs).flatMap((d) => d.entryPointNames),
      source,
    },
  };
}
