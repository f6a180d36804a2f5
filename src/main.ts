#!/usr/bin/env bun
import { homedir } from "node:os";
import packageJson from "../package.json" with { type: "json" };
import { buildCatalog } from "./catalog/build-catalog.ts";
import { credentialValues } from "./catalog/credential-values.ts";
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

// process.exit does not wait for a pipe to take pending writes: large output must drain first.
function writeAll(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve, reject) =>
    stream.write(text, (error) => (error ? reject(error) : resolve())),
  );
}

async function run(config: Config): Promise<void> {
  if (config.mode === "help") {
    await writeAll(process.stdout, usage(VERSION));
    return;
  }
  if (config.mode === "version") {
    await writeAll(process.stdout, `conda-mcp ${VERSION}\n`);
    return;
  }
  const discovery = await discover({
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
  const catalog = buildCatalog(discovery.introspection.tree, {
    secretValues: credentialValues(config.env),
  });
  if (config.mode === "catalog") {
    const header = `conda ${discovery.introspection.conda_version} at ${discovery.executable}`;
    await writeAll(
      process.stdout,
      config.json
        ? `${JSON.stringify({ conda_version: discovery.introspection.conda_version, ...catalog }, null, 2)}\n`
        : formatCatalog(catalog, header),
    );
    return;
  }
  // SIGTERM and SIGINT end serving cleanly: running calls are aborted, their process trees are
  // gone, then the process exits 0. A second signal gets the default (immediate) behaviour.
  const stop = new AbortController();
  process.once("SIGTERM", () => stop.abort());
  process.once("SIGINT", () => stop.abort());
  await serve({ config, discovery, catalog, version: VERSION, log, stop: stop.signal });
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
    await writeAll(process.stderr, `conda-mcp: ${error.message}\n`);
    process.exit(error.code === "INVALID_OPTION" ? 2 : 1);
  }
  await writeAll(
    process.stderr,
    `conda-mcp: unexpected failure: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(70);
}
