import { afterAll, beforeAll, describe, expect, mock, spyOn, test } from "bun:test";
import { availableParallelism } from "node:os";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { type CallToolResult, CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import * as rehearseModule from "../../src/server/rehearse-answer.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";

// Each rehearsal, counted through a pass-through wrapper.
let rehearsals = 0;
const { rehearseAnswer } = rehearseModule;
mock.module("../../src/server/rehearse-answer.ts", () => ({
  rehearseAnswer: () => {
    rehearsals++;
    return rehearseAnswer();
  },
}));

const { parseConfig } = await import("../../src/config/parse-config.ts");
const { discoverCatalog } = await import("../../src/catalog/discover-catalog.ts");
const { createServer } = await import("../../src/server/create-server.ts");
const { prepareServer } = await import("../../src/server/prepare-server.ts");

describe("rehearseAnswer", () => {
  test("takes its sample through the SDK's result check, which accepts it", () => {
    // Were the sample refused, the rehearsal would warm the error path, not an answer's.
    expect(rehearseAnswer()).toBe(true);
  });

  test("returns false instead of throwing: it runs from a timer, where a throw ends the server", () => {
    const check = spyOn(CallToolResultSchema, "safeParse").mockImplementation(() => {
      throw new Error("a changed SDK");
    });
    try {
      expect(rehearseAnswer()).toBe(false);
      expect(check).toHaveBeenCalledTimes(1);
    } finally {
      check.mockRestore();
    }
  });
});

describe("a server's first tools/call", () => {
  let fixture: FixtureConda;
  beforeAll(async () => {
    fixture = await makeFixtureConda();
  });
  afterAll(() => fixture.cleanup());

  test("rehearses the answer once, on its first call and not before (with a spare core)", async () => {
    const config = parseConfig(["--conda", fixture.condaExe, "--no-cache"], {
      env: fixture.env,
      platform: process.platform,
      home: fixture.root,
      cwd: fixture.root,
    });
    const { discovery, catalog } = await discoverCatalog(config, () => {});
    const prepared = prepareServer({
      config,
      conda: discovery,
      catalog,
      version: "0.0.0",
      log: () => {},
      handshakeSource: "server",
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = createServer(prepared.deps);
    await server.connect(serverSide);
    const client = new Client({ name: "rehearsal-test", version: "0" });
    await client.connect(clientSide);
    try {
      rehearsals = 0;
      await client.listTools();
      expect(rehearsals).toBe(0);
      for (let i = 0; i < 2; i++) {
        const result = (await client.callTool({
          name: "conda_info",
          arguments: { json: true },
        })) as CallToolResult;
        expect(result.isError).toBe(false);
        // On one core the rehearsal would only slow conda down.
        expect(rehearsals).toBe(availableParallelism() > 1 ? 1 : 0);
      }
    } finally {
      await client.close();
      prepared.shutdown.abort();
      await prepared.settled();
    }
  });
});
