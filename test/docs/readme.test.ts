import { expect, test } from "bun:test";
import { join } from "node:path";
import { parseConfig } from "../../src/config.ts";

const README = await Bun.file(join(import.meta.dir, "..", "..", "README.md")).text();
const host = { env: {}, platform: "linux" as const, home: "/home/u", cwd: "/work" };

function blocks(language: string): string[] {
  const fence = "```";
  const pattern = new RegExp(`${fence}${language}\\n([\\s\\S]*?)${fence}`, "g");
  return [...README.matchAll(pattern)].map((m) => m[1] as string);
}

test("every client configuration in the README is valid JSON whose arguments the server accepts", () => {
  const configs = blocks("json").map((text) => JSON.parse(text));
  expect(configs.length).toBeGreaterThanOrEqual(3);
  for (const config of configs) {
    const servers = config.mcpServers ?? config.servers;
    expect(servers?.conda?.command).toBeString();
    expect(() => parseConfig(servers.conda.args, host)).not.toThrow();
  }
});

test("the Claude Code command passes arguments the server accepts", () => {
  const line = blocks("sh")
    .flatMap((b) => b.split("\n"))
    .find((l) => l.startsWith("claude mcp add"));
  const args = (line ?? "").split(" -- ")[1]?.split(" ").slice(1) ?? [];
  expect(args).toContain("--conda");
  expect(() => parseConfig(args, host)).not.toThrow();
});

test("the README names its set-up, test and demo commands", () => {
  expect(README).toContain("npm ci && npm test");
  expect(README).toContain("npm ci && npm start");
  expect(README).toContain("npm run demo");
});
