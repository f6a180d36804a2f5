import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { realpathSync } from "node:fs";
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import type { SetupClient } from "../../src/setup/setup-clients.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { runProgram } from "../support/run-program.ts";
import { serverCommand } from "../support/start-server.ts";

let fixture: FixtureConda;
let work: string;

beforeAll(async () => {
  fixture = await makeFixtureConda({ withPlugins: false });
  work = await mkdtemp(join(tmpdir(), "conda-mcp-setup-"));
});
afterAll(async () => {
  await fixture?.cleanup();
  if (work) await rm(work, { recursive: true, force: true });
});

/** A private home and project folder for one test. */
async function place(): Promise<{ home: string; project: string }> {
  const dir = await mkdtemp(join(work, "case-"));
  const home = join(dir, "home");
  const project = join(dir, "project");
  await mkdir(home);
  await mkdir(project);
  return { home, project };
}

/** Runs `conda-mcp setup ...` as a real process with a private HOME and no client variables. */
async function setup(args: string[], where: { home: string; project: string }, env = {}) {
  const { command, args: leading } = serverCommand();
  return runProgram([command, ...leading, "setup", ...args], {
    env: { HOME: where.home, PATH: "/usr/bin:/bin", LANG: "C.UTF-8", ...env },
    cwd: where.project,
    timeoutMs: 30_000,
  });
}

/** Where each client's user file is on this (POSIX) machine, and what its entries look like. */
const CLIENTS: Record<
  SetupClient,
  { user: (home: string) => string; project: string | null; key: string; type: boolean }
> = {
  "claude-desktop": {
    user: (home) => join(appData(home), "Claude", "claude_desktop_config.json"),
    project: null,
    key: "mcpServers",
    type: false,
  },
  "claude-code": {
    user: (home) => join(home, ".claude.json"),
    project: ".mcp.json",
    key: "mcpServers",
    type: true,
  },
  vscode: {
    user: (home) => join(appData(home), "Code", "User", "mcp.json"),
    project: join(".vscode", "mcp.json"),
    key: "servers",
    type: true,
  },
  cursor: {
    user: (home) => join(home, ".cursor", "mcp.json"),
    project: join(".cursor", "mcp.json"),
    key: "mcpServers",
    type: false,
  },
  gemini: {
    user: (home) => join(home, ".gemini", "settings.json"),
    project: join(".gemini", "settings.json"),
    key: "mcpServers",
    type: false,
  },
};

function appData(home: string): string {
  return process.platform === "darwin"
    ? join(home, "Library", "Application Support")
    : join(home, ".config");
}

/** The entry setup should write for this program, run as the tests run it. */
function expectedEntry(client: SetupClient, options: string[]) {
  const { command, args } = serverCommand();
  const entry = {
    command: realpathSync(command),
    args: [...args.map((arg) => realpathSync(arg)), "--conda", fixture.condaExe, ...options],
  };
  return CLIENTS[client].type ? { type: "stdio", ...entry } : entry;
}

/** What a folder holds, less the .bun folder bun itself makes in HOME when it starts. */
async function contents(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name !== ".bun");
}

async function backups(file: string): Promise<string[]> {
  const names = await readdir(dirname(file));
  return names.filter((n) => n.startsWith(`${basename(file)}.`) && n.endsWith(".bak")).sort();
}

describe.each(Object.keys(CLIENTS) as SetupClient[])("conda-mcp setup %s", (client) => {
  const { key } = CLIENTS[client];
  // The fixture is built in beforeAll, after this body ran.
  const conda = () => ["--conda", fixture.condaExe];

  test("a fresh write creates the file and its folders, holding only the conda entry", async () => {
    const where = await place();
    const run = await setup([client, "--conda", fixture.condaExe, "--allow-write"], where);
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    const file = CLIENTS[client].user(where.home);
    const fresh = { [key]: { conda: expectedEntry(client, ["--allow-write"]) } };
    expect(await readFile(file, "utf8")).toBe(`${JSON.stringify(fresh, null, 2)}\n`);
    expect(run.stdout).toContain(`Added the "conda" server to ${file} (a new file)`);
    expect(await backups(file)).toEqual([]);
  });

  test("a merge keeps the other servers and keys verbatim and backs the old file up", async () => {
    const where = await place();
    const file = CLIENTS[client].user(where.home);
    const old = `{\n    "theme": "dark",\n    "${key}": {\n        "other": {"command": "other-server", "args": ["--x"]}\n    },\n    "numbers": [1.50, 1e2]\n}\n`;
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, old);
    const run = await setup([client, "--conda", fixture.condaExe, "--read-only-tools"], where);
    expect(run.exitCode).toBe(0);
    const entry = JSON.stringify(expectedEntry(client, ["--read-only-tools"]), null, 4);
    const other = `"other": {"command": "other-server", "args": ["--x"]}`;
    const merged = old.replace(
      other,
      `${other},\n        "conda": ${entry.replaceAll("\n", "\n        ")}`,
    );
    expect(await readFile(file, "utf8")).toBe(merged);
    const [backup, ...more] = await backups(file);
    expect(more).toEqual([]);
    expect(backup).toMatch(/\.\d{8}T\d{6}Z\.bak$/);
    expect(await readFile(join(dirname(file), backup ?? ""), "utf8")).toBe(old);
    expect(run.stdout).toContain(`the old file is saved as ${join(dirname(file), backup ?? "")}`);
  });

  test("a rerun replaces only the conda entry, and an identical rerun writes nothing", async () => {
    const where = await place();
    const file = CLIENTS[client].user(where.home);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify({ [key]: { other: { command: "o" } }, keep: true }));
    expect((await setup([client, ...conda(), "--allow-write"], where)).exitCode).toBe(0);
    const second = await setup([client, ...conda(), "--allow-exec", "--timeout", "90"], where);
    expect(second.stdout).toContain(`Replaced the "conda" server in ${file}`);
    const expected = {
      [key]: {
        other: { command: "o" },
        conda: expectedEntry(client, ["--allow-exec", "--timeout", "90"]),
      },
      keep: true,
    };
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual(expected);
    const before = await readFile(file, "utf8");
    const third = await setup([client, ...conda(), "--allow-exec", "--timeout=90"], where);
    expect(third.exitCode).toBe(0);
    expect(third.stdout).toBe(`${file} already has this "conda" server; nothing was written\n`);
    expect(await readFile(file, "utf8")).toBe(before);
    expect(await backups(file)).toHaveLength(2);
  });

  test("--print prints the file setup would write and writes nothing", async () => {
    const where = await place();
    const run = await setup([client, ...conda(), "--print"], where);
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ [key]: { conda: expectedEntry(client, []) } });
    expect(run.stderr).toContain("nothing was written");
    expect(await contents(where.home)).toEqual([]);
    expect(await contents(where.project)).toEqual([]);
  });

  const project = CLIENTS[client].project;
  if (project === null) {
    test("--scope project is refused: the client has no project file", async () => {
      const where = await place();
      const run = await setup([client, ...conda(), "--scope", "project"], where);
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toContain(`${client} has no project scope`);
      expect(await contents(where.home)).toEqual([]);
    });
  } else {
    test(`--scope project writes ${project} under the working directory`, async () => {
      const where = await place();
      const run = await setup([client, "--scope", "project", ...conda()], where);
      expect(run.exitCode).toBe(0);
      const written = JSON.parse(await readFile(join(where.project, project), "utf8"));
      expect(written).toEqual({ [key]: { conda: expectedEntry(client, []) } });
      expect(await contents(where.home)).toEqual([]);
    });
  }

  test.each([
    ["is not JSON", `{"${key}": {"other": `, "is not valid JSON"],
    ["has comments", `{\n  // my servers\n  "${key}": {}\n}\n`, "has comments"],
  ])("a file that %s is refused and left untouched", async (_, old, problem) => {
    const where = await place();
    const file = CLIENTS[client].user(where.home);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, old);
    const run = await setup([client, ...conda()], where);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(`conda-mcp: ${file} ${problem}`);
    expect(run.stderr).toContain("so setup left it untouched");
    expect(run.stderr).toContain(`"conda": {`);
    expect(await readFile(file, "utf8")).toBe(old);
    expect(await backups(file)).toEqual([]);
  });
});

test("a configuration file that is a symbolic link is updated where it points, and stays a link", async () => {
  const where = await place();
  const shared = join(where.home, "dotfiles", "mcp.json");
  await mkdir(dirname(shared), { recursive: true });
  await writeFile(shared, '{"mcpServers": {}}\n');
  const link = join(where.home, ".cursor", "mcp.json");
  await mkdir(dirname(link));
  await symlink(shared, link);
  const run = await setup(["cursor", "--conda", fixture.condaExe], where);
  expect(run.exitCode).toBe(0);
  expect((await lstat(link)).isSymbolicLink()).toBe(true);
  expect(JSON.parse(await readFile(shared, "utf8")).mcpServers.conda).toEqual(
    expectedEntry("cursor", []),
  );
  expect(await backups(shared)).toHaveLength(1);
});

test("a project's file that links outside the project (a cloned link to a user file) is refused", async () => {
  const where = await place();
  const user = join(where.home, ".gemini", "settings.json");
  await mkdir(dirname(user), { recursive: true });
  await writeFile(user, '{"mcpServers": {}}\n');
  const link = join(where.project, ".cursor", "mcp.json");
  await mkdir(dirname(link), { recursive: true });
  await symlink(user, link);
  const run = await setup(["cursor", "--scope", "project", "--conda", fixture.condaExe], where);
  expect(run.exitCode).toBe(1);
  expect(run.stderr).toContain("outside the project; setup left it untouched");
  expect(await readFile(user, "utf8")).toBe('{"mcpServers": {}}\n');
  expect(await backups(user)).toEqual([]);
});

test("started by the conda plugin, the entry runs `<conda> mcp` with the options given", async () => {
  const where = await place();
  // What `conda mcp setup cursor --allow-write` runs: the plugin's variable and its --conda.
  const run = await setup(
    ["cursor", "--print", "--allow-write", "--conda", fixture.condaExe],
    where,
    { CONDA_MCP_VIA_CONDA: fixture.condaExe },
  );
  expect(run.exitCode).toBe(0);
  expect(JSON.parse(run.stdout)).toEqual({
    mcpServers: { conda: { command: fixture.condaExe, args: ["mcp", "--allow-write"] } },
  });
});

test("without --conda, setup writes the absolute path of the conda it finds on PATH", async () => {
  const where = await place();
  const run = await setup(["gemini", "--print"], where, { PATH: fixture.env.PATH });
  expect(run.exitCode).toBe(0);
  expect(JSON.parse(run.stdout).mcpServers.conda).toEqual(expectedEntry("gemini", []));
});

test("setup without a client, or with one it does not know, is refused naming the clients", async () => {
  const where = await place();
  for (const args of [["--print"], ["zed"]]) {
    const run = await setup(args, where);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("claude-desktop, claude-code, vscode, cursor, gemini");
  }
});
