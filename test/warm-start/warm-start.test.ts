import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { cp, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { countPythonRuns } from "../support/count-python-runs.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import {
  isMarked,
  markSnapshots,
  readSnapshot,
  snapshotFiles,
  writeSnapshot,
} from "../support/snapshot-files.ts";
import {
  afterInitialize,
  initializeLine,
  type RawServer,
  spawnRawServer,
  toolsCall,
} from "../support/spawn-raw-server.ts";
import { serverCommand } from "../support/start-server.ts";

const TEST_TIMEOUT = 90_000;
const PLUGINS_DIR = join(import.meta.dir, "..", "fixtures", "conda", "plugins");

let fixture: FixtureConda;
let cacheDir: string;

beforeAll(async () => {
  fixture = await makeFixtureConda({ withPlugins: false });
  cacheDir = join(fixture.home, ".cache", "conda-mcp");
}, 60_000);

afterAll(async () => {
  await fixture?.cleanup();
});

beforeEach(async () => {
  await rm(cacheDir, { recursive: true, force: true });
});

type Message = Record<string, unknown>;

/** initialize, notifications/initialized and tools/list in one write, as clients pipeline them. */
async function handshake(
  server: RawServer,
  protocolVersion = "2025-11-25",
): Promise<{ init: Message; list: Message }> {
  await server.write(
    `${initializeLine(0, protocolVersion)}${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })}\n`,
  );
  const init = await server.waitFor("initialize answer", (m) => m.id === 0);
  const list = await server.waitFor("tools/list answer", (m) => m.id === 1);
  return { init, list };
}

/** A whole session: the handshake and nothing else, then stdin closes. */
async function session(
  options: { args?: string[]; env?: Record<string, string>; protocolVersion?: string } = {},
): Promise<{ init: Message; list: Message; stderr: string }> {
  const server = spawnRawServer({
    conda: fixture.condaExe,
    env: options.env ?? fixture.env,
    args: options.args ?? [],
    cache: true,
  });
  try {
    const answers = await handshake(server, options.protocolVersion);
    expect(await server.close()).toBe(0);
    return { ...answers, stderr: server.stderr() };
  } finally {
    await server.close().catch(() => {});
  }
}

/**
 * Sends `text` to a cold server (`--no-cache`), then to one started warm from the snapshot that a
 * session with the same `args` records, and hands each to `check` once the text is written;
 * `before` runs before each start.
 */
async function coldThenWarm(
  options: { args?: string[]; text: string; before?: () => Promise<unknown> },
  check: (server: RawServer) => Promise<void>,
): Promise<void> {
  const args = options.args ?? [];
  for (const cache of [false, true]) {
    if (cache) await session({ args });
    await options.before?.();
    const server = spawnRawServer({ conda: fixture.condaExe, env: fixture.env, args, cache });
    try {
      await server.write(options.text);
      await check(server);
    } finally {
      await server.close().catch(() => {});
    }
  }
}

function toolNames(list: Message): string[] {
  return ((list.result as { tools: { name: string }[] }).tools ?? []).map((t) => t.name);
}

function tools(list: Message): { description?: string }[] {
  return (list.result as { tools: { description?: string }[] }).tools;
}

/** Marks the stored snapshots (see markSnapshots); there must be one. */
async function markSnapshotsHere(): Promise<void> {
  expect(await markSnapshots(cacheDir)).toBeGreaterThan(0);
}

const marked = (list: Message) => isMarked(tools(list));

describe("warm start: the handshake answered from the startup snapshot", () => {
  test(
    "a start that answers from the snapshot marks it as used, so pruning counts from then",
    async () => {
      await session();
      // Marked first: marking rewrites the file.
      await markSnapshotsHere();
      const [file] = await snapshotFiles(cacheDir);
      const monthAgo = new Date(Date.now() - 31 * 24 * 3600 * 1000);
      await utimes(file as string, monthAgo, monthAgo);
      const warm = await session();
      expect(marked(warm.list)).toBe(true);
      expect((await stat(file as string)).mtimeMs).toBeGreaterThan(
        monthAgo.getTime() + 24 * 3600 * 1000,
      );
    },
    TEST_TIMEOUT,
  );

  test(
    "a start records its answers; the next start answers exactly the same from the snapshot",
    async () => {
      const cold = await session({ args: ["--no-cache"] });
      expect(await snapshotFiles(cacheDir)).toEqual([]);

      const first = await session();
      expect(first.init).toEqual(cold.init);
      expect(first.list).toEqual(cold.list);
      const [file] = await snapshotFiles(cacheDir);
      expect(file).toBeDefined();
      expect((await stat(file as string)).mode & 0o777).toBe(0o600);

      const second = await session();
      expect(second.init).toEqual(cold.init);
      expect(second.list).toEqual(cold.list);

      await markSnapshotsHere();
      const third = await session();
      expect(third.init).toEqual(cold.init);
      expect(marked(third.list)).toBe(true);
      expect(third.stderr).toBe("");
    },
    TEST_TIMEOUT,
  );

  test(
    "after the handshake the full server takes over: calls, resources and reused ids work",
    async () => {
      await session();
      await markSnapshotsHere();
      const server = spawnRawServer({ conda: fixture.condaExe, env: fixture.env, cache: true });
      try {
        // Everything in one write: the answerer hands the rest over without losing a line.
        await server.write(
          afterInitialize([
            { jsonrpc: "2.0", method: "notifications/initialized" },
            { jsonrpc: "2.0", id: 1, method: "tools/list" },
            // Reuses the initialize id: its replayed answer must not swallow this one.
            {
              jsonrpc: "2.0",
              id: 0,
              method: "tools/call",
              params: { name: "conda_info", arguments: { json: true } },
            },
            {
              jsonrpc: "2.0",
              id: 2,
              method: "resources/read",
              params: { uri: "conda://capabilities" },
            },
            { jsonrpc: "2.0", id: 3, method: "tools/list" },
          ]),
        );
        await server.waitFor(
          "the call's answer",
          (m) => m.id === 0 && !("protocolVersion" in (m.result as Message)),
        );
        const capabilities = await server.waitFor("capabilities", (m) => m.id === 2);
        const list = await server.waitFor("second tools/list", (m) => m.id === 3);
        expect(await server.close()).toBe(0);
        const answers = server
          .lines()
          .map((line) => JSON.parse(line) as { id: unknown; result: Message });
        // One answer per request (the call's comes when conda is done): the replayed
        // initialize was not answered twice, and the call reusing its id was answered.
        expect(answers.map((m) => m.id)).toEqual([0, 1, 2, 3, 0]);
        const [init, first, , , call] = answers;
        expect(init?.result.protocolVersion).toBe("2025-11-25");
        expect(marked(first as Message)).toBe(true);
        const structured = call?.result.structuredContent as Message;
        expect(structured.exit_code).toBe(0);
        expect(structured.parsed_json).toMatchObject({ conda_version: expect.any(String) });
        const text = (capabilities.result as { contents: { text: string }[] }).contents[0]?.text;
        expect(JSON.parse(text as string)).toMatchObject({
          catalog_source: "cache",
          handshake_source: "snapshot",
        });
        // The full server builds its list itself.
        expect(marked(list)).toBe(false);
      } finally {
        await server.close().catch(() => {});
      }
    },
    TEST_TIMEOUT,
  );

  test(
    "another protocol version, other options or other credentials never get this snapshot",
    async () => {
      await session();
      await markSnapshotsHere();
      const otherVersion = await session({ protocolVersion: "2025-06-18" });
      expect((otherVersion.init.result as Message).protocolVersion).toBe("2025-06-18");
      expect(marked(otherVersion.list)).toBe(false);
      // The full server recorded the new version's handshake: the next such start uses it.
      await markSnapshotsHere();
      const again = await session({ protocolVersion: "2025-06-18" });
      expect((again.init.result as Message).protocolVersion).toBe("2025-06-18");
      expect(marked(again.list)).toBe(true);

      const withExec = await session({ args: ["--allow-exec"] });
      expect(toolNames(withExec.list)).toContain("conda_execute");
      expect(marked(withExec.list)).toBe(false);

      const withToken = await session({
        env: { ...fixture.env, ANACONDA_API_TOKEN: "tok-123456" },
      });
      expect(marked(withToken.list)).toBe(false);
    },
    TEST_TIMEOUT,
  );

  test(
    "a changed conda, plugin set or .condarc is never answered from an old snapshot",
    async () => {
      const before = await session();
      expect(toolNames(before.list)).not.toContain("conda_tools_cache_info");

      await cp(join(PLUGINS_DIR, "tools"), fixture.sitePackages, { recursive: true });
      try {
        await markSnapshotsHere();
        const added = await session();
        expect(marked(added.list)).toBe(false);
        expect(toolNames(added.list)).toContain("conda_tools_cache_info");
      } finally {
        await rm(join(fixture.sitePackages, "fixture_tools-2.1.0.dist-info"), { recursive: true });
        await rm(join(fixture.sitePackages, "fixture_tools"), { recursive: true });
      }

      await session();
      await markSnapshotsHere();
      const condarc = join(fixture.home, ".condarc");
      await writeFile(condarc, "channels: [defaults]\n");
      try {
        expect(marked((await session()).list)).toBe(false);
      } finally {
        await rm(condarc);
      }

      await session();
      await markSnapshotsHere();
      const later = new Date(Date.now() + 5_000);
      await utimes(fixture.condaExe, later, later);
      const touched = await session();
      expect(marked(touched.list)).toBe(false);
      expect(touched.list).toEqual(before.list);
    },
    TEST_TIMEOUT,
  );

  test(
    "a corrupt or altered snapshot is ignored with one line on stderr and written anew",
    async () => {
      const first = await session();
      const [file] = (await snapshotFiles(cacheDir)) as [string];
      await writeFile(file, "{ not json");
      const corrupt = await session();
      expect(corrupt.list).toEqual(first.list);
      expect(corrupt.stderr).toContain("startup snapshot: ignored, its header is not valid JSON");
      const rewritten = (await readSnapshot(file)).header;
      expect(rewritten.format).toBe(4);
      // It names the catalog entry it was recorded from by the digest of that entry's text.
      const entries = (await readdir(cacheDir)).filter((n) => /^[0-9a-f]{64}\.json$/.test(n));
      expect(entries).toHaveLength(1);
      const entry = await readFile(join(cacheDir, entries[0] as string), "utf8");
      expect(rewritten.entryDigest).toBe(createHash("sha256").update(entry).digest("hex"));

      const snapshot = await readSnapshot(file);
      await writeSnapshot(file, { ...snapshot, list: snapshot.list.replace("conda", "CONDA") });
      const altered = await session();
      expect(altered.list).toEqual(first.list);
      expect(altered.stderr).toContain(
        "startup snapshot: ignored, its answers do not match their digest",
      );
    },
    TEST_TIMEOUT,
  );

  test(
    "the snapshot records the catalog it was built from; a warm start takes it only while it matches its digest",
    async () => {
      await session();
      const [file] = (await snapshotFiles(cacheDir)) as [string];
      const snapshot = await readSnapshot(file);
      const digestOf = (text: string) => createHash("sha256").update(text).digest("hex");
      expect(snapshot.header.catalogDigest).toBe(digestOf(snapshot.catalog));
      const recorded = JSON.parse(snapshot.catalog) as { commands: { summary: string }[] };
      /** The first command's summary as conda://capabilities of a warm start shows it. */
      const servedSummary = async () => {
        const server = spawnRawServer({ conda: fixture.condaExe, env: fixture.env, cache: true });
        try {
          await handshake(server);
          const uri = "conda://capabilities";
          await server.write(
            `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri } })}\n`,
          );
          const read = await server.waitFor("capabilities", (m) => m.id === 2);
          expect(await server.close()).toBe(0);
          const { contents } = read.result as { contents: { text: string }[] };
          const capabilities = JSON.parse(contents[0]?.text as string);
          expect(capabilities.handshake_source).toBe("snapshot");
          return capabilities.catalog.commands[0].summary as string;
        } finally {
          await server.close().catch(() => {});
        }
      };
      const original = recorded.commands[0]?.summary as string;
      expect(await servedSummary()).toBe(original);
      // Altered with its digest: taken as recorded, which proves the recorded catalog is used.
      const altered = JSON.stringify({
        ...recorded,
        commands: [{ ...recorded.commands[0], summary: "altered" }, ...recorded.commands.slice(1)],
      });
      const header = { ...snapshot.header, catalogDigest: digestOf(altered) };
      await writeSnapshot(file, { ...snapshot, header, catalog: altered });
      expect(await servedSummary()).toBe("altered");
      // Altered without: the catalog is built again from the entry.
      await writeSnapshot(file, { ...snapshot, catalog: altered });
      expect(await servedSummary()).toBe(original);
      // Multibyte text is hashed and decoded as the bytes on disk.
      const multibyte = altered.replace('"altered"', '"réécrit − ±"');
      const multibyteHeader = { ...snapshot.header, catalogDigest: digestOf(multibyte) };
      await writeSnapshot(file, { ...snapshot, header: multibyteHeader, catalog: multibyte });
      expect(await servedSummary()).toBe("réécrit − ±");
      // Bytes that are not UTF-8, with their digest: the answers stand, the catalog is rebuilt.
      const notUtf8 = Buffer.from([0x7b, 0xff, 0x7d]);
      const catalogDigest = createHash("sha256").update(notUtf8).digest("hex");
      const headerLine = JSON.stringify({ ...snapshot.header, catalogDigest });
      const answers = `${headerLine}\n${snapshot.init}\n${snapshot.list}\n`;
      await writeFile(file, Buffer.concat([Buffer.from(answers), notUtf8, Buffer.from("\n")]));
      expect(await servedSummary()).toBe(original);
    },
    TEST_TIMEOUT,
  );

  test(
    "requests written with stdin closed right after still get their quick answers, cold and warm",
    async () => {
      const requests = afterInitialize([
        { jsonrpc: "2.0", method: "notifications/initialized" },
        {
          jsonrpc: "2.0",
          id: 1,
          method: "resources/read",
          params: { uri: "conda://capabilities" },
        },
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
      ]);
      const sources: unknown[] = [];
      await coldThenWarm({ text: requests }, async (server) => {
        expect(await server.close()).toBe(0);
        const answers = server.lines().map((line) => JSON.parse(line) as Message);
        expect(answers.map((m) => m.id).sort()).toEqual([0, 1, 2]);
        const read = answers.find((m) => m.id === 1)?.result as { contents: { text: string }[] };
        sources.push(JSON.parse(read.contents[0]?.text as string).handshake_source);
      });
      expect(sources).toEqual(["server", "snapshot"]);
    },
    TEST_TIMEOUT,
  );

  test(
    "calls written with the handshake are answered as a cold server answers them (they start before the SDK loads: see start-waiting-calls.test.ts)",
    async () => {
      const args = ["--allow-exec", "--progress-interval", "0.1"];
      const marker = join(fixture.root, "waiting-calls.log");
      const shell = (script: string) => ({
        no_capture_output: true,
        executable_call: ["sh", "-c", script],
      });
      const requests = [
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        toolsCall(2, "conda_info", { json: true }),
        toolsCall(3, "conda_info", { json: "yes" }),
        toolsCall(4, "conda_nope", {}),
        toolsCall(5, "conda_run", shell(`echo ran >> '${marker}'; sleep 0.4`), {
          _meta: { progressToken: "p5" },
        }),
        // Cancelled in the same write: it never runs, early or not.
        toolsCall(6, "conda_run", shell(`echo cancelled >> '${marker}'`)),
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 6 } },
        {
          jsonrpc: "2.0",
          id: 7,
          method: "resources/read",
          params: { uri: "conda://capabilities" },
        },
      ];
      const text = afterInitialize(requests);
      const runs: { answers: Map<unknown, Message>; progress: Message[]; source: unknown }[] = [];
      const before = () => rm(marker, { force: true });
      await coldThenWarm({ args, text, before }, async (server) => {
        for (const id of [0, 1, 2, 3, 4, 5, 7])
          await server.waitFor(`answer ${id}`, (m) => m.id === id);
        // Long enough for a run of id 6 to have written its line, had it started.
        await Bun.sleep(300);
        expect(await server.close()).toBe(0);
        const messages = server.lines().map((line) => JSON.parse(line) as Message);
        const answers = new Map(messages.filter((m) => "id" in m).map((m) => [m.id, m]));
        const progress = messages.filter((m) => m.method === "notifications/progress");
        const read = answers.get(7)?.result as { contents: { text: string }[] };
        const source = JSON.parse(read.contents[0]?.text as string).handshake_source;
        runs.push({ answers, progress, source });
        expect(await readFile(marker, "utf8")).toBe("ran\n");
      });
      const [cold, warm] = runs as [(typeof runs)[0], (typeof runs)[0]];
      expect([cold.source, warm.source]).toEqual(["server", "snapshot"]);
      for (const run of runs) {
        expect([...run.answers.keys()].sort()).toEqual([0, 1, 2, 3, 4, 5, 7]);
        const info = run.answers.get(2)?.result as { structuredContent: { stdout: string } };
        expect(JSON.parse(info.structuredContent.stdout).conda_version).toBe("26.7.0");
        const ran = run.answers.get(5)?.result as { structuredContent: { exit_code: number } };
        expect(ran.structuredContent.exit_code).toBe(0);
        expect(run.progress.length).toBeGreaterThan(0);
        for (const note of run.progress) expect((note.params as Message).progressToken).toBe("p5");
      }
      // Refusals are the same text whoever ran them.
      for (const id of [3, 4])
        expect(warm.answers.get(id)).toEqual(cold.answers.get(id) as Message);
    },
    TEST_TIMEOUT,
  );

  test(
    "calls written with the handshake run in the order they came, cold and warm",
    async () => {
      const args = ["--allow-exec"];
      const log = join(fixture.root, "call-order.log");
      const run = (id: number, script: string, meta: object) =>
        toolsCall(
          id,
          "conda_run",
          { no_capture_output: true, executable_call: ["sh", "-c", script] },
          { _meta: meta },
        );
      // The first is one only the SDK takes (an unknown _meta key); the second could start early.
      const requests = [
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        run(2, `echo A >> '${log}'; sleep 0.3; echo A-done >> '${log}'`, {
          progressToken: 1,
          x: 1,
        }),
        run(3, `echo B >> '${log}'`, {}),
      ];
      const text = afterInitialize(requests);
      const before = () => rm(log, { force: true });
      await coldThenWarm({ args, text, before }, async (server) => {
        for (const id of [2, 3]) await server.waitFor(`answer ${id}`, (m) => m.id === id);
        expect(await server.close()).toBe(0);
        expect(await readFile(log, "utf8")).toBe("A\nA-done\nB\n");
      });
    },
    TEST_TIMEOUT,
  );

  test(
    "SIGTERM while only the snapshot has answered ends the process with 0",
    async () => {
      await session();
      const server = spawnRawServer({ conda: fixture.condaExe, env: fixture.env, cache: true });
      try {
        await server.write(initializeLine(0));
        await server.waitFor("initialize answer", (m) => m.id === 0);
        server.kill("SIGTERM");
        expect(await server.close()).toBe(0);
        expect(server.stderr()).toBe("");
      } finally {
        await server.close().catch(() => {});
      }
    },
    TEST_TIMEOUT,
  );

  test(
    "the SDK's own client connects to a warm server, lists its tools and calls one",
    async () => {
      await session();
      const { command, args } = serverCommand();
      const transport = new StdioClientTransport({
        command,
        args: [...args, "--conda", fixture.condaExe],
        env: fixture.env,
        stderr: "pipe",
      });
      const client = new Client({ name: "conda-mcp-tests", version: "0.0.0" });
      await client.connect(transport);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain("conda_info");
        const result = await client.callTool({ name: "conda_info", arguments: { json: true } });
        expect(result.isError).toBeFalsy();
        expect((result.structuredContent as Message).exit_code).toBe(0);
      } finally {
        await client.close();
      }
    },
    TEST_TIMEOUT,
  );
});

describe("a start without a snapshot: the handshake answered from its own catalog", () => {
  /** A cold start (`--no-cache`) sent `initialize` with `params`, then tools/list and `more`. */
  async function coldHandshake(params: Message, more: object[] = []) {
    const server = spawnRawServer({ conda: fixture.condaExe, env: fixture.env });
    try {
      const initialize = { jsonrpc: "2.0", id: 0, method: "initialize", params };
      const lines = [
        initialize,
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        ...more,
      ];
      await server.write(lines.map((m) => `${JSON.stringify(m)}\n`).join(""));
      const init = await server.waitFor("initialize answer", (m) => m.id === 0);
      const list = await server.waitFor("tools/list answer", (m) => m.id === 1);
      return { server, init, list };
    } catch (error) {
      await server.close();
      throw error;
    }
  }

  const params = (protocolVersion: string, extra: Message = {}) => ({
    protocolVersion,
    capabilities: {},
    clientInfo: { name: "raw", version: "0" },
    ...extra,
  });

  test(
    "answers a plain handshake with the very results the SDK gives one it leaves to the SDK",
    async () => {
      for (const version of ["2025-11-25", "2025-06-18"]) {
        const own = await coldHandshake(params(version), [
          toolsCall(2, "conda_info", { json: true }),
        ]);
        // `_meta` in initialize is not a plain handshake: the SDK's Server answers all of it.
        const sdk = await coldHandshake(params(version, { _meta: {} }));
        try {
          expect(JSON.stringify(own.init.result)).toBe(JSON.stringify(sdk.init.result));
          expect(JSON.stringify(own.list.result)).toBe(JSON.stringify(sdk.list.result));
          expect((own.init.result as Message).protocolVersion).toBe(version);
          // Who wrote each answer shows in its envelope: the start-up answerer puts the result
          // last, the SDK's Server puts it first.
          const envelope = (server: RawServer, id: number) =>
            server
              .lines()
              .find((line) => JSON.parse(line).id === id)
              ?.slice(0, 12);
          expect([envelope(own.server, 0), envelope(own.server, 1)]).toEqual([
            '{"jsonrpc":"',
            '{"jsonrpc":"',
          ]);
          expect([envelope(sdk.server, 0), envelope(sdk.server, 1)]).toEqual([
            '{"result":{"',
            '{"result":{"',
          ]);
          expect(toolNames(own.list)).toContain("conda_info");
          // A call right behind the handshake is served once the SDK has taken over.
          const call = await own.server.waitFor("tools/call answer", (m) => m.id === 2);
          expect(((call.result as Message).structuredContent as Message).exit_code).toBe(0);
          expect(await own.server.close()).toBe(0);
          expect(await sdk.server.close()).toBe(0);
        } finally {
          await own.server.close();
          await sdk.server.close();
        }
      }
    },
    TEST_TIMEOUT,
  );

  test(
    "leaves a protocol version the SDK does not accept to the SDK, which answers with its own",
    async () => {
      const { server, init, list } = await coldHandshake(params("2099-01-01"));
      try {
        expect((init.result as Message).protocolVersion).toBe("2025-11-25");
        expect(toolNames(list)).toContain("conda_info");
        expect(await server.close()).toBe(0);
      } finally {
        await server.close();
      }
    },
    TEST_TIMEOUT,
  );

  test(
    "answers a handshake that comes only once the catalog is built, as one that came at once",
    async () => {
      const server = spawnRawServer({ conda: fixture.condaExe, env: fixture.env });
      try {
        // The client says nothing until long after the catalog is built (the fixture's
        // discovery takes a fraction of this): the first line decides, whenever it comes.
        await Bun.sleep(1500);
        const { list } = await handshake(server, "2025-06-18");
        expect(toolNames(list)).toContain("conda_info");
        // The start-up answerer's envelope: the result comes last (the SDK's puts it first).
        const envelopes = server.lines().map((line) => line.slice(0, 12));
        expect(envelopes).toEqual(['{"jsonrpc":"', '{"jsonrpc":"']);
        expect(await server.close()).toBe(0);
      } finally {
        await server.close();
      }
    },
    TEST_TIMEOUT,
  );

  test(
    "records the snapshot when the client asks something else between initialize and tools/list",
    async () => {
      const lines = [
        initializeLine(0, "2025-06-18"),
        `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`,
        `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "resources/list" })}\n`,
        `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`,
      ].join("");
      const server = spawnRawServer({ conda: fixture.condaExe, env: fixture.env, cache: true });
      let init: Message;
      let list: Message;
      try {
        await server.write(lines);
        init = await server.waitFor("initialize answer", (m) => m.id === 0);
        list = await server.waitFor("tools/list answer", (m) => m.id === 2);
        expect(await server.close()).toBe(0);
      } finally {
        await server.close();
      }
      // initialize was answered before the SDK loaded, tools/list by the SDK: both recorded.
      expect((await snapshotFiles(cacheDir)).length).toBe(1);
      await markSnapshotsHere();
      const next = await session({ protocolVersion: "2025-06-18" });
      expect(next.init).toEqual(init);
      expect(marked(next.list)).toBe(true);
      expect(tools(next.list).length).toBe(tools(list).length);
    },
    TEST_TIMEOUT,
  );
});

describe("a start sure to introspect spawns conda's Python before anything else loads", () => {
  test(
    "it does so with --no-cache or no cache entry, never when an entry is there to read",
    async () => {
      const counted = await makeFixtureConda({ withPlugins: false });
      try {
        const { runs } = await countPythonRuns(counted, true);
        const countedCache = join(counted.home, ".cache", "conda-mcp");
        const start = async (cache: boolean) => {
          const server = spawnRawServer({ conda: counted.condaExe, env: counted.env, cache });
          try {
            const { list } = await handshake(server);
            expect(toolNames(list)).toContain("conda_install");
            expect(await server.close()).toBe(0);
          } finally {
            await server.close().catch(() => {});
          }
        };
        const entries = async () =>
          (await readdir(countedCache).catch(() => [] as string[])).filter((name) =>
            /^[0-9a-f]{64}\.json$/.test(name),
          );

        await start(true); // No entry yet: introspects, writes the entry and the snapshot.
        expect(await runs()).toBe(1);
        expect(await entries()).toHaveLength(1);
        for (const file of await snapshotFiles(countedCache)) await rm(file);
        await start(true); // No snapshot, but an entry: read, no Python.
        expect(await runs()).toBe(1);
        await start(false); // --no-cache: introspects.
        expect(await runs()).toBe(2);
        await rm(countedCache, { recursive: true, force: true });
        await start(true);
        expect(await runs()).toBe(3);
        expect(await entries()).toHaveLength(1);
      } finally {
        await counted.cleanup();
      }
    },
    TEST_TIMEOUT,
  );
});
