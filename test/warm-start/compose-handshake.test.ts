import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { discoverCatalog } from "../../src/catalog/discover-catalog.ts";
import { parseConfig } from "../../src/config/parse-config.ts";
import { createServer } from "../../src/server/create-server.ts";
import { prepareServer } from "../../src/server/prepare-server.ts";
import type { ServerDeps } from "../../src/server/server-deps.ts";
import { composeHandshake } from "../../src/warm-start/compose-handshake.ts";
import { PROTOCOL_VERSIONS } from "../../src/warm-start/handshake-shapes.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { describeRealConda, REAL_CONDA } from "../support/real-conda.ts";

/** The deps a server on `condaExe` serves, discovered without the catalog cache. */
async function depsFor(condaExe: string, env: Record<string, string>, home: string) {
  const config = parseConfig(["--conda", condaExe, "--no-cache"], {
    env,
    platform: process.platform,
    home,
    cwd: home,
  });
  const { discovery, catalog } = await discoverCatalog(config, () => {});
  return prepareServer({
    config,
    conda: discovery,
    catalog,
    version: "1.2.3",
    log: () => {},
    handshakeSource: "server",
  });
}

/** The SDK Server's own answers to `requests`, as the JSON text of each result, in order. */
async function sdkResults(deps: ServerDeps, requests: JSONRPCMessage[]): Promise<string[]> {
  const [client, server] = InMemoryTransport.createLinkedPair();
  const results: string[] = [];
  const answered = new Promise<void>((resolve) => {
    client.onmessage = (message) => {
      results.push(JSON.stringify("result" in message ? message.result : message));
      if (results.length === requests.length) resolve();
    };
  });
  const sdk = createServer(deps);
  await sdk.connect(server);
  await client.start();
  for (const request of requests) await client.send(request);
  await answered;
  await sdk.close();
  return results;
}

function initialize(id: number, protocolVersion: string): JSONRPCMessage {
  const params = { protocolVersion, capabilities: {}, clientInfo: { name: "t", version: "1" } };
  return { jsonrpc: "2.0", id, method: "initialize", params };
}

/** Every case, against the server of one conda. */
function composedAnswersCases(deps: () => ServerDeps) {
  test("answer initialize, for every protocol version the SDK accepts, with the SDK's own text", async () => {
    const answers = composeHandshake(deps());
    for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
      const [sdk] = await sdkResults(deps(), [initialize(1, version)]);
      expect(answers.initializeResult(version)).toBe(sdk as string);
    }
  });

  test("answer tools/list with the SDK's own text", async () => {
    const [, sdk] = await sdkResults(deps(), [
      initialize(1, LATEST_PROTOCOL_VERSION),
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
    ]);
    const answers = composeHandshake(deps());
    expect(answers.toolsListResult()).toBe(sdk as string);
    expect(JSON.parse(answers.toolsListResult()).tools.length).toBe(deps().entries.length);
  });

  test("leave a protocol version the SDK does not accept to the SDK (it answers with its latest)", async () => {
    const [sdk] = await sdkResults(deps(), [initialize(1, "2099-01-01")]);
    expect(JSON.parse(sdk as string).protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(composeHandshake(deps()).initializeResult("2099-01-01")).toBeNull();
  });
}

describe("this start's own handshake answers (the fixture conda)", () => {
  let fixture: FixtureConda;
  let deps: ServerDeps;
  beforeAll(async () => {
    fixture = await makeFixtureConda();
    deps = (await depsFor(fixture.condaExe, fixture.env, fixture.home)).deps;
  }, 60_000);
  afterAll(() => fixture?.cleanup());

  test("know the SDK's protocol versions, in its order", () => {
    expect([...PROTOCOL_VERSIONS]).toEqual([...SUPPORTED_PROTOCOL_VERSIONS]);
  });

  composedAnswersCases(() => deps);
});

describeRealConda("this start's own handshake answers", () => {
  let deps: ServerDeps;
  beforeAll(async () => {
    const env = { ...process.env } as Record<string, string>;
    deps = (await depsFor(REAL_CONDA as string, env, env.HOME ?? "/")).deps;
  }, 120_000);

  composedAnswersCases(() => deps);
});
