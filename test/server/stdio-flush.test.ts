import { afterAll, beforeAll, expect, test } from "bun:test";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { afterInitialize, spawnRawServer } from "../support/spawn-raw-server.ts";

let fixture: FixtureConda;
beforeAll(async () => {
  fixture = await makeFixtureConda();
});
afterAll(() => fixture?.cleanup());

test("an answer of hundreds of KB asked for just before stdin closes reaches the client whole", async () => {
  const requests = afterInitialize([
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: "conda://capabilities" } },
  ]);
  // Losing the tail was a race with the exit: several starts make it show.
  for (let round = 0; round < 6; round++) {
    const server = spawnRawServer({ conda: fixture.condaExe, env: fixture.env });
    await server.write(requests);
    expect(await server.close()).toBe(0);
    const lines = server.lines();
    expect(lines).toHaveLength(2);
    const read = JSON.parse(lines[1] as string) as { result: { contents: { text: string }[] } };
    expect(read.result.contents[0]?.text.length).toBeGreaterThan(200_000);
  }
}, 60_000);
