import { describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { discover } from "../../src/discover/discover.ts";

// The one test that needs a real conda; it runs only when the machine offers one.
const realConda = process.env.CONDA_MCP_TEST_CONDA;

describe("a real conda", () => {
  test.skipIf(!realConda)(
    "is discovered and introspected (skipped unless CONDA_MCP_TEST_CONDA names a conda executable)",
    async () => {
      // A private HOME: conda must not see or touch the user's files.
      const home = await mkdtemp(join(tmpdir(), "conda-mcp-real-home-"));
      const discovery = await discover({
        explicitPath: realConda ?? null,
        env: { ...process.env, HOME: home },
        platform: process.platform,
        timeoutMs: 120_000,
        cacheDir: null,
      }).finally(() => rm(home, { recursive: true, force: true }));
      const commands = discovery.introspection.tree.subcommands.map((sub) => sub.command);
      expect(commands).toEqual(expect.arrayContaining(["create", "install", "env", "run", "list"]));
      expect(discovery.introspection.conda_version).toMatch(/^\d+\./);
      expect(discovery.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    },
    180_000,
  );
});
