import { expect, test } from "bun:test";
import { describeRealConda, useRealCondaSandbox } from "../support/real-conda.ts";
import { afterInitialize, spawnRawServer, toolsCall } from "../support/spawn-raw-server.ts";

// Calls written together with the handshake, as a client that calls at once sends them: after a
// warm start they run before the MCP SDK is loaded, and must come back as a cold server answers.

const sandbox = useRealCondaSandbox();

type Message = Record<string, unknown>;

const REQUESTS = [
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 1, method: "tools/list" },
  toolsCall(2, "conda_info", { json: true }),
  toolsCall(3, "conda_env_list", { json: true }),
  toolsCall(4, "conda_info", { json: "yes" }),
  { jsonrpc: "2.0", id: 5, method: "resources/read", params: { uri: "conda://capabilities" } },
];

/** One session that writes the handshake and the calls at once; its answers by id. */
async function answersOf(cache: boolean): Promise<Map<unknown, Message>> {
  const server = spawnRawServer({ conda: sandbox().condaExe, env: sandbox().env, cache });
  try {
    await server.write(afterInitialize(REQUESTS));
    for (const id of [0, 1, 2, 3, 4, 5]) {
      await server.waitFor(`answer ${id}`, (m) => m.id === id, 120_000);
    }
    expect(await server.close()).toBe(0);
    const messages = server.lines().map((line) => JSON.parse(line) as Message);
    return new Map(messages.filter((m) => "id" in m).map((m) => [m.id, m]));
  } finally {
    await server.close().catch(() => {});
  }
}

/** The result of answer `id`, which must be there. */
function resultOf(answers: Map<unknown, Message>, id: number): Message {
  const result = answers.get(id)?.result;
  if (result === undefined) throw new Error(`no result for request ${id}`);
  return result as Message;
}

const structured = (answers: Map<unknown, Message>, id: number) =>
  resultOf(answers, id).structuredContent as { exit_code: number; stdout: string };

describeRealConda("calls that come with a warm start's handshake", () => {
  test("are answered as a cold server answers them", async () => {
    const cold = await answersOf(false);
    // The first cached start records the snapshot; the next one answers from it.
    await answersOf(true);
    const warm = await answersOf(true);
    const source = (answers: Map<unknown, Message>) => {
      const read = resultOf(answers, 5) as { contents: { text: string }[] };
      return JSON.parse(read.contents[0]?.text as string).handshake_source;
    };
    expect([source(cold), source(warm)]).toEqual(["server", "snapshot"]);
    for (const id of [2, 3]) {
      expect(structured(warm, id).exit_code).toBe(0);
      expect(JSON.parse(structured(warm, id).stdout)).toEqual(
        JSON.parse(structured(cold, id).stdout),
      );
    }
    expect(warm.get(4)).toEqual(cold.get(4) as Message);
    expect(resultOf(warm, 4).isError).toBe(true);
  }, 300_000);
});
