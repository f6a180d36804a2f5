import type { DiscoveredConda, Installation } from "../installation.ts";
import type { CachedDiscovery } from "./catalog-cache.ts";
import { watchFingerprint } from "./compute-fingerprint.ts";
import { expandDocument } from "./expand-document.ts";
import { scanCondaEntryPoints } from "./scan-conda-entry-points.ts";

/** The tree and installation a discovery describes, fresh or restored from the cache. */
export function discoveredConda(
  executable: string,
  found: CachedDiscovery,
  source: Installation["source"],
): DiscoveredConda {
  const payload = expandDocument(found.introspection);
  const { python } = found;
  const siteDirs = payload.site_dirs;
  const condaVersion = payload.conda_version;
  return {
    tree: payload.tree,
    preParser: payload.pre_parser,
    installation: {
      executable,
      python,
      condaArgv: found.condaArgv,
      condaVersion,
      rootPrefix: payload.root_prefix,
      envsDirs: payload.envs_dirs,
      siteDirs,
      plugins: payload.external_plugins,
      completionCacheDir: payload.completion?.cache_dir ?? null,
      fingerprint: found.fingerprint,
      currentFingerprint: watchFingerprint({ executable, python, siteDirs, condaVersion }),
      currentPluginNames: () => scanCondaEntryPoints(siteDirs).flatMap((d) => d.entryPointNames),
      source,
    },
  };
}
