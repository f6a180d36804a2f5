import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { type Config, parseConfig } from "../../src/config.ts";
import { discoverCatalog } from "../../src/discover-catalog.ts";
import type { ToolEntry } from "../../src/server/build-tool-registry.ts";
import { prepareServer } from "../../src/server/prepare-server.ts";
import { serve } from "../../src/server/serve.ts";
import { LineReader } from "../../src/stdio/line-reader.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { withDeadline } from "../support/start-server.ts";

let fixture: FixtureConda;
let config: Config;
let discovered: Awaited<ReturnType<typeof discoverCatalog>>;

beforeAll(async () => {
  fixture = await makeFixtureConda();
  config = parseConfig(["--conda", fixture.condaExe, "--no-cache"], {
    env: fixture.env,
    platform: process.platform,
    home: fixture.home,
    cwd: fixture.root,
  });
  discovered = await discoverCatalog(config, () => {});
});

afterAll(async () => {
  await fixture?.cleanup();
});

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "t", version: "1" },
  },
};

const tick = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Serves stdio from `input`, whose lines wait in the reader first as main.ts's do, with the tool
 * entries watched: the names whose definition was read, and the lines written to stdout (kept
 * from the test's own output).
 */
async function serveWatched(input: PassThrough) {
  const stdin = new LineReader(input);
  await tick();
  const prepared = prepareServer({
    config,
    conda: discovered.discovery,
    catalog: discovered.catalog,
    version: "0",
    log: () => {},
    handshakeSource: "server",
  });
  const read = new Set<string>();
  const entries = prepared.deps.entries.map(
    (entry) =>
      new Proxy(entry, {
        get(target, property, receiver) {
          if (property === "definition") read.add(target.name);
          return Reflect.get(target, property, receiver);
        },
      }) as ToolEntry,
  );
  const written: string[] = [];
  const stdoutWrite = process.stdout.write;
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
    written.push(String(chunk));
    const done = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    done?.();
    return true;
  }) as typeof process.stdout.write;
  const serving = serve({
    config,
    prepared: { ...prepared, deps: { ...prepared.deps, entries } },
    log: () => {},
    stop: new AbortController().signal,
    stdin,
    handover: null,
    waiting: null,
    recorder: null,
  }).finally(() => {
    process.stdout.write = stdoutWrite;
  });
  return { serving, read, written, names: entries.map((e) => e.name) };
}

describe("serve() on stdio, answering the handshake itself", () => {
  test("builds every tool's definition after its initialize answer, before tools/list is asked", async () => {
    const input = new PassThrough();
    input.write(`${JSON.stringify(INITIALIZE)}\n`);
    const { serving, read, written, names } = await serveWatched(input);
    await withDeadline(
      (async () => {
        while (read.size < names.length) await Bun.sleep(5);
      })(),
      4_000,
      "every definition read",
    );
    expect([...read].sort()).toEqual([...names].sort());
    expect(written.map((line) => JSON.parse(line).id)).toEqual([1]);
    input.end();
    await serving;
  });

  test("builds none when the client has gone by then", async () => {
    const input = new PassThrough();
    input.end(`${JSON.stringify(INITIALIZE)}\n`);
    const { serving, read, written } = await serveWatched(input);
    await serving;
    expect(written.map((line) => JSON.parse(line).id)).toEqual([1]);
    expect([...read]).toEqual([]);
  });
});
