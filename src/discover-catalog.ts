import { buildCatalog } from "./catalog/build-catalog.ts";
import type { Catalog } from "./catalog/catalog-types.ts";
import { credentialValues } from "./catalog/credential-values.ts";
import type { Config } from "./config.ts";
import { type Discovery, discover, type FoundConda } from "./discover/discover.ts";
import { userCacheDir } from "./discover/user-cache-dir.ts";

/**
 * Discovers the configured conda (from the catalog cache when it still holds) and builds its
 * catalog: the first two stages, shared by the executable and the library entry.
 */
export async function discoverCatalog(
  config: Config,
  log: (line: string) => void,
  found: FoundConda | null = null,
  onPythonStarted?: () => void,
): Promise<{ discovery: Discovery; catalog: Catalog }> {
  const discovery = await discover({
    found,
    onPythonStarted,
    explicitPath: config.condaPath,
    env: config.env,
    platform: config.platform,
    timeoutMs: config.introspectionTimeoutMs,
    home: config.home,
    cacheDir: config.cache
      ? userCacheDir({ env: config.env, platform: config.platform, home: config.home })
      : null,
    log,
  });
  const catalog = buildCatalog(discovery.tree, {
    secretValues: credentialValues(config.env),
    preParser: discovery.preParser,
  });
  return { discovery, catalog };
}
