#!/usr/bin/env bun
import { homedir } from "node:os";
import packageJson from "../package.json" with { type: "json" };
import { buildCatalog } from "./catalog/build-catalog.ts";
import { formatCatalog } from "./catalog/format-catalog.ts";
import { type Config, parseConfig, usage } from "./config.ts";
import { discover } from "./discover/discover.ts";
import { userCacheDir } from "./discover/user-cache-dir.ts";
import { CondaMcpError } from "./errors.ts";
import { serve } from "./server/serve.ts";

const VERSION: string = packageJson.version;

function log(line: string): void {
  process.stderr.write(`conda-mcp: ${line}\n`);
}

async function run(config: Config): Promise<void> {
  if (config.mode === "help") {
    process.stdout.write(usage(VERSION));
    return;
  }
  if (config.mode === "version") {
    process.stdout.write(`conda-mcp ${VERSION}\n`);
    return;
  }
  const discovery = await discover({
    explicitPath: config.condaPath,
    env: config.env,
    platform: config.platform,
    timeoutMs: config.introspectionTimeoutMs,
    cacheDir: config.cache
      ? userCacheDir({ env: config.env, platform: config.platform, home: config.home })
      : null,
    log,
  });
  const catalog = buildCatalog(discovery.introspection.tree);
  if (config.mode === "catalog") {
    const header = `conda ${discovery.introspection.conda_version} at ${discovery.executable}`;
    process.stdout.write(
      config.json
        ? `${JSON.stringify({ conda_version: discovery.introspection.conda_version, ...catalog }, null, 2)}\n`
        : formatCatalog(catalog, header),
    );
    return;
  }
  await serve({ config, discovery, catalog, version: VERSION, log });
}

try {
  const config = parseConfig(process.argv.slice(2), {
    env: process.env,
    platform: process.platform,
    home: homedir(),
    cwd: process.cwd(),
  });
  await run(config);
  process.exit(0);
} catch (error) {
  if (error instanceof CondaMcpError) {
    log(error.message);
    process.exit(error.code === "INVALID_OPTION" ? 2 : 1);
  }
  log(`unexpected failure: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(70);
}
