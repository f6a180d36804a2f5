import type { Config } from "../config/config-types.ts";
import { userCacheDir } from "../discover/cache-file.ts";
import { type Discovery, discover, type FoundConda } from "../discover/discover.ts";
import type { StartedIntrospection } from "../discover/start-introspection.ts";
import { type RecordedCatalog, recordedCatalog } from "../warm-start/startup-snapshot.ts";
import { buildCatalog, createStreamedCatalog } from "./build-catalog.ts";
import type { Catalog } from "./catalog-types.ts";
import { credentialValues } from "./redact-secrets.ts";

/**
 * Discovers the configured conda (from the catalog cache when it still holds) and builds its
 * catalog: the first two stages, shared by the executable and the library entry. A catalog the
 * startup snapshot recorded (`recorded`) is taken as it is when discovery read the very entry
 * the snapshot named and its bytes still have their recorded digest: this version built it from
 * that entry under the same options and credentials, which the snapshot's key covers.
 */
export async function discoverCatalog(
  config: Config,
  log: (line: string) => void,
  found: FoundConda | null = null,
  onPythonStarted?: () => void,
  recorded: RecordedCatalog | null = null,
  started: StartedIntrospection | null = null,
): Promise<{ discovery: Discovery; catalog: Catalog }> {
  const secretValues = credentialValues(config.env);
  // Fresh from Python, each command is put in the catalog as it comes, while the next is made.
  const streamed = createStreamedCatalog(secretValues);
  const discovery = await discover({
    found,
    started,
    onPythonStarted,
    onCommand: streamed.onCommand,
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
  const reused = recorded && discovery.cache?.proven ? recordedCatalog(recorded) : null;
  const catalog =
    reused ??
    streamed.finish() ??
    buildCatalog(discovery.tree, { secretValues, preParser: discovery.preParser });
  return { discovery, catalog };
}
