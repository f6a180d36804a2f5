import { expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OPTION_TABLE } from "../../src/config/option-table.ts";
import { parseConfig } from "../../src/config/parse-config.ts";
import { makeFixtureConda } from "../support/make-fixture-conda.ts";

const REPO = join(import.meta.dir, "..", "..");
const README = await Bun.file(join(REPO, "README.md")).text();
const host = { env: {}, platform: "linux" as const, home: "/home/u", cwd: "/work" };

function blocks(language: string): string[] {
  const fence = "```";
  const pattern = new RegExp(`${fence}${language}\\n([\\s\\S]*?)${fence}`, "g");
  return [...README.matchAll(pattern)].map((m) => m[1] as string);
}

/** The server's own arguments: after `mcp` when conda starts it (the plugin appends --conda). */
function serverArgs(command: string, args: string[]): string[] {
  if (!/(^|[/\\])conda(\.exe)?$/.test(command)) return args;
  expect(args[0]).toBe("mcp");
  return [...args.slice(1), "--conda", command];
}

test("every client configuration in the README is valid JSON whose arguments the server accepts", () => {
  const configs = blocks("json").map((text) => JSON.parse(text));
  expect(configs.length).toBeGreaterThanOrEqual(3);
  for (const config of configs) {
    const servers = config.mcpServers ?? config.servers;
    expect(servers?.conda?.command).toBeString();
    const args = serverArgs(servers.conda.command, servers.conda.args);
    expect(() => parseConfig(args, host)).not.toThrow();
  }
});

test("the Claude Code command passes arguments the server accepts", () => {
  const line = blocks("sh")
    .flatMap((b) => b.split("\n"))
    .find((l) => l.startsWith("claude mcp add"));
  const [command = "", ...rest] = (line ?? "").split(" -- ")[1]?.split(" ") ?? [];
  const args = serverArgs(command, rest);
  expect(args).toContain("--conda");
  expect(() => parseConfig(args, host)).not.toThrow();
});

test("the README names every startup option of the option table", () => {
  const missing = OPTION_TABLE.map((o) => o.flags[0]).filter(
    (flag) => !README.includes(`\`${flag}`),
  );
  expect(missing).toEqual([]);
});

test("the README names its set-up, test and demo commands", () => {
  expect(README).toContain("npm ci && npm test");
  expect(README).toContain("npm ci && npm start");
  expect(README).toContain("npm run demo");
});

test("the TypeScript example runs as written against a conda, imported as the package", async () => {
  const [example] = blocks("ts");
  expect(example).toContain('from "conda-mcp"');
  const fixture = await makeFixtureConda();
  const dir = await mkdtemp(join(tmpdir(), "conda-mcp-readme-"));
  try {
    // Installed the way a host depends on it: node_modules/conda-mcp is this package.
    await mkdir(join(dir, "node_modules", "@modelcontextprotocol"), { recursive: true });
    await symlink(REPO, join(dir, "node_modules", "conda-mcp"));
    await symlink(
      join(REPO, "node_modules", "@modelcontextprotocol", "sdk"),
      join(dir, "node_modules", "@modelcontextprotocol", "sdk"),
    );
    await writeFile(join(dir, "example.ts"), example ?? "");
    const run = Bun.spawn([process.execPath, join(dir, "example.ts")], {
      cwd: dir,
      env: { ...fixture.env, CONDA_EXE: fixture.condaExe },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(run.stdout).text(),
      new Response(run.stderr).text(),
      run.exited,
    ]);
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines[0]).toContain("conda_info");
    expect(lines.slice(1)).toEqual(["0", "26.7.0"]);
    expect(stderr).toContain("conda_info: conda info --json → exit 0");
  } finally {
    await rm(dir, { recursive: true, force: true });
    await fixture.cleanup();
  }
}, 60_000);
