import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { serverCommand, withDeadline } from "../support/start-server.ts";

let fixture: FixtureConda;

beforeAll(async () => {
  fixture = await makeFixtureConda();
});
afterAll(() => fixture?.cleanup());

async function runCli(args: string[], env: Record<string, string>) {
  const { command, args: leading } = serverCommand();
  const child = Bun.spawn([command, ...leading, ...args], {
    env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await withDeadline(
    Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]),
    30_000,
    `conda-mcp ${args.join(" ")}`,
  );
  return { stdout, stderr, code };
}

describe("the command line", () => {
  test("--help lists the options and --version prints the version", async () => {
    const help = await runCli(["--help"], fixture.env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--allow-write");
    const version = await runCli(["--version"], fixture.env);
    expect(version.stdout).toMatch(/^conda-mcp \d+\.\d+\.\d+\n$/);
  });

  test("without any conda the error says how to point the server at one", async () => {
    const result = await runCli([], { PATH: "/usr/bin:/bin", HOME: fixture.home });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    for (const way of ["--conda", "CONDA_EXE", "PATH"]) expect(result.stderr).toContain(way);
  });

  test("a bad option exits 2 naming what to change", async () => {
    const result = await runCli(["--timeout", "soon"], fixture.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--timeout takes a number");
  });

  test("catalog prints tools and the commands that are not tools, for people and as JSON", async () => {
    const human = await runCli(["catalog", "--conda", fixture.condaExe, "--no-cache"], fixture.env);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("conda_env_config_vars_set");
    expect(human.stdout).toContain("conda activate: excluded");
    const machine = await runCli(
      ["catalog", "--json", "--conda", fixture.condaExe, "--no-cache"],
      fixture.env,
    );
    const doc = JSON.parse(machine.stdout);
    expect(doc.conda_version).toBe("26.7.0");
    expect(doc.commands.some((c: { toolName: string }) => c.toolName === "conda_greet")).toBe(true);
  });

  test("the server writes only protocol to stdout and exits when stdin closes", async () => {
    const { command, args } = serverCommand();
    const child = Bun.spawn([command, ...args, "--conda", fixture.condaExe, "--no-cache"], {
      env: fixture.env,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const request = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "0" },
      },
    };
    child.stdin.write(`${JSON.stringify(request)}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`);
    await child.stdin.flush();
    const reader = child.stdout.getReader();
    let text = "";
    // Two whole lines: a 120 KB tools/list answer can arrive in several chunks.
    while ((text.match(/\n/g) ?? []).length < 2) {
      const { value, done } = await withDeadline(reader.read(), 30_000, "two responses");
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    child.stdin.end();
    expect(await withDeadline(child.exited, 10_000, "exit after stdin closed")).toBe(0);
    const lines = text
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(lines.map((m) => m.id)).toEqual([1, 2]);
    expect(lines[1].result.tools.length).toBeGreaterThan(20);
  });
});
