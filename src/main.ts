#!/usr/bin/env bun
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import packageJson from "../package.json" with { type: "json" };
import type { Config } from "./config/config-types.ts";
import { parseConfig, usage } from "./config/parse-config.ts";
import { catalogEntryName } from "./discover/cache-file.ts";
import { findConda } from "./discover/find-conda.ts";
import type { StartedIntrospection } from "./discover/start-introspection.ts";
import { CondaMcpError } from "./errors.ts";
import { LineReader } from "./stdio/line-reader.ts";
import { stdoutOutput, writeAll } from "./stdio/stdout-output.ts";
import { answerHandshake, type Handover } from "./warm-start/answer-handshake.ts";
import {
  readStartupSnapshot,
  type SnapshotPlace,
  snapshotAnswers,
  snapshotPlace,
} from "./warm-start/startup-snapshot.ts";

// Only light modules are imported above: the MCP SDK, valibot and the catalog are loaded by
// run.ts, after a warm start has answered the handshake (test/warm-start checks this).

const VERSION: string = packageJson.version;

function log(line: string): void {
  process.stderr.write(`conda-mcp: ${line}\n`);
}

async function main(config: Config): Promise<void> {
  if (config.mode === "help") {
    await writeAll(process.stdout, usage(VERSION));
    return;
  }
  if (config.mode === "version") {
    await writeAll(process.stdout, `conda-mcp ${VERSION}\n`);
    return;
  }
  if (config.mode === "setup") {
    const { runSetup } = await import("./setup/run-setup.ts");
    const launch = { execPath: process.execPath, mainPath: import.meta.path };
    await runSetup(config, launch, { stdout: process.stdout, stderr: process.stderr });
    return;
  }
  const onStdio = config.mode === "serve" && config.http === null;
  const place = onStdio ? snapshotPlace(config, VERSION, log) : null;
  const snapshot = place ? readStartupSnapshot(place) : null;
  const started = snapshot ? null : await introspectFirst(config, place);
  // A start without a snapshot opens stdin once conda's Python is spawned (run.ts), not before.
  let stdin: LineReader | null = null;
  const openStdin = onStdio ? () => (stdin ??= new LineReader(Bun.stdin.stream())) : null;
  const stdout = onStdio ? stdoutOutput() : null;
  let handover: Handover | null = null;
  if (openStdin && stdout && snapshot) {
    // While only the snapshot answers, SIGTERM and SIGINT simply end the process cleanly.
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once("SIGTERM", onSignal);
    process.once("SIGINT", onSignal);
    handover = await answerHandshake(snapshotAnswers(snapshot), openStdin(), stdout, stop.signal);
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
    if (handover === null) return;
  }
  const { run } = await import("./run.ts");
  // What the snapshot just proved of the catalog entry it was recorded from spares its checks.
  const proven = snapshot && { stamp: snapshot.stamp, entryDigest: snapshot.entryDigest };
  const found = place && { ...place.found, proven };
  const recordedCatalog = snapshot?.catalog ?? null;
  await run({
    config,
    version: VERSION,
    log,
    openStdin,
    stdout,
    handover,
    found,
    recordedCatalog,
    started,
  });
}

/**
 * A start that serves or prints the catalog and is sure to introspect (no catalog cache, or no
 * entry in it for this conda) spawns conda's Python here, before it loads anything else: Python's
 * run is most of such a start. Any other start leaves discovery to decide; so does one whose
 * conda cannot be found here.
 */
async function introspectFirst(
  config: Config,
  place: SnapshotPlace | null,
): Promise<StartedIntrospection | null> {
  const entry = place && join(place.cache.cacheDir, catalogEntryName(place.found.catalogKey));
  if (config.cache && (entry === null || existsSync(entry))) return null;
  let executable: string;
  try {
    executable =
      place?.found.executable ??
      findConda({ explicitPath: config.condaPath, env: config.env, platform: config.platform });
  } catch {
    return null;
  }
  const { startIntrospection } = await import("./discover/start-introspection.ts");
  const started = startIntrospection(executable, {
    env: config.env,
    platform: config.platform,
    timeoutMs: config.introspectionTimeoutMs,
  });
  // Spawned, or failed (which discovery reports), before the rest loads.
  await started.running.then(
    () => {},
    () => {},
  );
  return started;
}

try {
  const config = parseConfig(process.argv.slice(2), {
    env: process.env,
    platform: process.platform,
    home: homedir(),
    cwd: process.cwd(),
  });
  await main(config);
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
