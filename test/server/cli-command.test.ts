import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { pack } from "msgpackr/pack";
import { pluginHash } from "../../src/completion/plugin-hash.ts";
import { scanCondaEntryPoints } from "../../src/discover/compute-fingerprint.ts";
import { exampleManifest } from "../completion/manifest-fixture.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { type RunningServer, startServer } from "../support/start-server.ts";

let fixture: FixtureConda;
let server: RunningServer;

beforeAll(async () => {
  fixture = await makeFixtureConda({ withCompletion: "0.3.2" });
  const cacheDir = join(fixture.root, "completion-cache");
  mkdirSync(cacheDir);
  // The manifest is written for the plugins installed now, so it starts fresh.
  const names = scanCondaEntryPoints([fixture.sitePackages]).flatMap((d) => d.entryPointNames);
  const manifest = { ...(await exampleManifest()), plugin_hash: pluginHash(names) };
  writeFileSync(join(cacheDir, "completion.msgpack"), pack(manifest));
  server = await startServer({
    conda: fixture.condaExe,
    env: { ...fixture.env, CONDA_COMPLETION_CACHE_DIR: cacheDir },
  });
});

afterAll(async () => {
  await server?.close();
  await fixture?.cleanup();
});

async function describe(commandPath: string[]) {
  return (await server.client.callTool({
    name: "conda_cli_command",
    arguments: { command_path: commandPath },
  })) as CallToolResult;
}

test("conda_cli_command returns one command's metadata through MCP, never package caches", async () => {
  const result = await describe(["env", "remove"]);
  const out = result.structuredContent as {
    availability: string;
    stale: boolean;
    exclusive_groups: string[][];
  };
  expect(out.availability).toBe("available");
  expect(out.stale).toBe(false);
  expect(out.exclusive_groups).toEqual([["-n", "-p"]]);
  expect(JSON.stringify(result)).not.toContain("numpy");
});

test("an unknown command path is an invalid-input error that does not echo it", async () => {
  const result = await describe(["no-such-command-XYZ"]);
  expect(result.isError).toBe(true);
  expect(JSON.stringify(result.content)).not.toContain("XYZ");
});

test("installing a plugin while the server runs makes the manifest stale", async () => {
  const distInfo = join(fixture.sitePackages, "late_plugin-1.0.dist-info");
  mkdirSync(distInfo);
  writeFileSync(join(distInfo, "METADATA"), "Name: late-plugin\nVersion: 1.0\n");
  writeFileSync(join(distInfo, "entry_points.txt"), "[conda]\nlate = late_plugin\n");
  const out = (await describe([])).structuredContent as { stale: boolean };
  expect(out.stale).toBe(true);
});
