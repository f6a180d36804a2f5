// Compiled and run by scripts/bench-startup.ts (not on its own): replays the server's start-up
// path stage by stage in a fresh process and prints each stage's milliseconds as one JSON line.
// Modules are imported dynamically so each import is timed where it is first evaluated.
// Usage: <compiled probe> [--serve] --program BINARY --conda PATH, after one start of the server
// BINARY in the same environment wrote the catalog cache entry and its startup snapshot. The
// snapshot-path phases are all a warm start spends before tools/list is answered; the rest is
// what loads after the handshake. With --serve, the last phase is serve() itself with stdin at
// EOF (tool registry, capabilities, MCP Server, stdio connect and close) instead of the tool
// registry alone.
import { homedir } from "node:os";
import packageJson from "../package.json" with { type: "json" };

const marks: [string, number][] = [];
// performance.now() counts from the process's start, so the first mark is the runtime's boot.
let last = 0;
const mark = (phase: string) => {
  const now = performance.now();
  marks.push([phase, now - last]);
  last = now;
};
mark("runtime boot, until the program's first line runs");

// What a warm start does before tools/list is answered (main.ts and warm-start/).
const { parseConfig } = await import("../src/config/parse-config.ts");
const { readStartupSnapshot, snapshotPlace } = await import(
  "../src/warm-start/startup-snapshot.ts"
);
mark("snapshot path: import the start-up answerer's modules");
const args = process.argv.slice(2);
const withServe = args.includes("--serve");
// A snapshot belongs to the executable that recorded it: the probe reads the server binary's.
const programAt = args.indexOf("--program");
const program = args[programAt + 1];
if (programAt < 0 || program === undefined) throw new Error("--program BINARY is required");
const config = parseConfig(
  args.filter((a, i) => a !== "--serve" && i !== programAt && i !== programAt + 1),
  { env: process.env, platform: process.platform, home: homedir(), cwd: process.cwd() },
);
const place = snapshotPlace(config, packageJson.version, () => {}, program);
mark("snapshot path: parse options, find conda, name the snapshot");
const snapshot = place ? readStartupSnapshot(place) : null;
if (!place || !snapshot) throw new Error("no valid startup snapshot: start the server once first");
mark("snapshot path: read the snapshot, recompute fingerprint and .condarc digest");
void `{"jsonrpc":"2.0","id":1,"result":${snapshot.toolsListResult}}\n`;
mark("snapshot path: compose the tools/list answer line");

// What loads after the handshake, in run.ts's order: conda-mcp's own modules, discovery from
// the catalog entry the snapshot proved and the catalog it recorded (calls that waited start
// once the server's deps are prepared from them), then the MCP SDK. The probe prepares the
// deps inside its last phase.
await import("valibot");
await import("@valibot/to-json-schema");
mark("after the handshake: import valibot and @valibot/to-json-schema");
const { discoverCatalog } = await import("../src/catalog/discover-catalog.ts");
const { buildToolRegistry } = await import("../src/server/build-tool-registry.ts");
const { prepareServer } = await import("../src/server/prepare-server.ts");
const { toolDefinitions } = await import("../src/server/build-tool-registry.ts");
mark("after the handshake: import conda-mcp's own modules");

const found = {
  ...place.found,
  proven: { stamp: snapshot.stamp, entryDigest: snapshot.entryDigest },
};
const { discovery, catalog } = await discoverCatalog(
  config,
  () => {},
  found,
  undefined,
  snapshot.catalog,
);
mark(
  `after the handshake: discover (${discovery.installation.source}) and the catalog, from what the snapshot proved`,
);
await import("@modelcontextprotocol/sdk/server/index.js");
await import("@modelcontextprotocol/sdk/types.js");
const { serve } = await import("../src/server/serve.ts");
mark("after the handshake: import the MCP SDK (builds its zod schemas) and the server");
if (withServe) {
  const stop = new AbortController();
  const log = () => {};
  const prepared = prepareServer({
    config,
    conda: discovery,
    catalog,
    version: "0",
    log,
    handshakeSource: "server",
  });
  await serve({
    config,
    prepared,
    log,
    stop: stop.signal,
    stdin: null,
    stdout: null,
    handover: null,
    waiting: null,
    recorder: null,
  });
  mark(
    "serve() with stdin at EOF: tool registry, capabilities, MCP Server, stdio connect and close",
  );
} else {
  const { entries } = buildToolRegistry(catalog, {
    allowExec: false,
    readOnlyTools: false,
    tools: null,
    cliCommandTool: null,
    schemaDetail: "compact",
  });
  mark("buildToolRegistry alone, without serve(): names, classes and policies");
  const definitions = toolDefinitions(entries);
  mark("every tool's definition, as tools/list needs (valibot → JSON Schema per tool)");
  JSON.stringify(definitions);
  mark("serialize the tools/list result, without serve()");
}

// Exit as main.ts does once the line is out (process.exit does not wait for a pipe).
process.stdout.write(`${JSON.stringify(Object.fromEntries(marks))}\n`, () => process.exit(0));
