import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { runProgram } from "../support/run-program.ts";

// The plugin's launcher decides, without conda, which binary `conda mcp` runs and with what
// argv and environment (conda-plugin/conda_mcp_plugin/launch.py); these cases run it with the
// system python3 against real files in a temporary prefix.

const REPO = join(import.meta.dir, "..", "..");
const PLUGIN_DIR = join(REPO, "conda-plugin");

// Reads cases as JSON on stdin, prints what plan() made of each; -B keeps the checkout free of
// __pycache__.
const DRIVER = `
import json, sys
from conda_mcp_plugin.launch import plan
out = []
for case in json.load(sys.stdin):
    planned = plan(case["args"], case["env"], case["prefix"], case["on_win"])
    if isinstance(planned, str):
        out.append({"error": planned})
    else:
        argv, env = planned
        out.append({"argv": argv, "via": env.get("CONDA_MCP_VIA_CONDA")})
print(json.dumps(out))
`;

interface Case {
  args: string[];
  env: Record<string, string>;
  prefix: string;
  on_win: boolean;
}

type Outcome = { argv: string[]; via: string | null } | { error: string };

let work: string;
/** A POSIX prefix holding bin/conda; bin/conda-mcp only in `full`. */
let bare: string;
let full: string;
/** Windows layouts: Scripts\conda.exe with the binary in Scripts or Library\bin. */
let winScripts: string;
let winLibrary: string;
/** A folder on PATH holding conda-mcp, and an explicit binary elsewhere. */
let pathDir: string;
let explicit: string;

async function touch(path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, "#!/bin/sh\n");
  await chmod(path, 0o755);
}

async function plan(cases: Case[]): Promise<Outcome[]> {
  const run = await runProgram(["python3", "-B", "-c", DRIVER], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", PYTHONPATH: PLUGIN_DIR },
    stdin: JSON.stringify(cases),
    timeoutMs: 30_000,
  });
  if (run.exitCode !== 0) throw new Error(`the launcher driver failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "conda-mcp-launch-"));
  bare = join(work, "bare");
  full = join(work, "full");
  winScripts = join(work, "win-scripts");
  winLibrary = join(work, "win-library");
  pathDir = join(work, "on-path");
  explicit = join(work, "elsewhere", "conda-mcp-dev");
  await Promise.all([
    touch(join(bare, "bin", "conda")),
    touch(join(bare, "condabin", "conda")),
    touch(join(full, "bin", "conda")),
    touch(join(full, "bin", "conda-mcp")),
    touch(join(winScripts, "Scripts", "conda.exe")),
    touch(join(winScripts, "Scripts", "conda-mcp.exe")),
    touch(join(winScripts, "Library", "bin", "conda-mcp.exe")),
    touch(join(winLibrary, "Scripts", "conda.exe")),
    touch(join(winLibrary, "Library", "bin", "conda-mcp.exe")),
    touch(join(pathDir, "conda-mcp")),
    touch(explicit),
  ]);
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("which conda-mcp binary `conda mcp` runs", () => {
  test("CONDA_MCP_BINARY wins over the binary beside conda and the one on PATH", async () => {
    const [outcome] = await plan([
      {
        args: [],
        env: { CONDA_MCP_BINARY: explicit, PATH: pathDir },
        prefix: full,
        on_win: false,
      },
    ]);
    expect(outcome).toEqual({
      argv: [explicit, "--conda", join(full, "bin", "conda")],
      via: join(full, "bin", "conda"),
    });
  });

  test("a CONDA_MCP_BINARY that names no executable is an error, not a fallback", async () => {
    const [outcome] = await plan([
      { args: [], env: { CONDA_MCP_BINARY: join(work, "missing") }, prefix: full, on_win: false },
    ]);
    expect(outcome).toEqual({
      error: `conda mcp: CONDA_MCP_BINARY is '${join(work, "missing")}', which is not an executable file`,
    });
  });

  test("beside conda comes before PATH; PATH is the last resort", async () => {
    const outcomes = await plan([
      { args: [], env: { PATH: pathDir }, prefix: full, on_win: false },
      { args: [], env: { PATH: pathDir }, prefix: bare, on_win: false },
    ]);
    expect(outcomes.map((o) => ("argv" in o ? o.argv[0] : o.error))).toEqual([
      join(full, "bin", "conda-mcp"),
      join(pathDir, "conda-mcp"),
    ]);
  });

  test("PATH's relative and empty entries are never searched (they mean the working directory)", async () => {
    const [outcome] = await plan([
      {
        args: [],
        env: { PATH: `:${relative(process.cwd(), pathDir)}` },
        prefix: bare,
        on_win: false,
      },
    ]);
    expect(outcome).toHaveProperty("error");
  });

  test("on Windows, Scripts comes before Library\\bin", async () => {
    const outcomes = await plan([
      { args: [], env: { PATH: "" }, prefix: winScripts, on_win: true },
      { args: [], env: { PATH: "" }, prefix: winLibrary, on_win: true },
    ]);
    expect(outcomes).toEqual([
      {
        argv: [
          join(winScripts, "Scripts", "conda-mcp.exe"),
          "--conda",
          join(winScripts, "Scripts", "conda.exe"),
        ],
        via: join(winScripts, "Scripts", "conda.exe"),
      },
      {
        argv: [
          join(winLibrary, "Library", "bin", "conda-mcp.exe"),
          "--conda",
          join(winLibrary, "Scripts", "conda.exe"),
        ],
        via: join(winLibrary, "Scripts", "conda.exe"),
      },
    ]);
  });

  test("none found: one line naming the variable, the place beside conda and PATH", async () => {
    const [outcome] = await plan([{ args: [], env: { PATH: "" }, prefix: bare, on_win: false }]);
    expect(outcome).toEqual({
      error: `conda mcp: the conda-mcp binary was not found: set CONDA_MCP_BINARY to its path, install it beside conda as ${join(bare, "bin", "conda-mcp")} (conda install conda-mcp), or put conda-mcp on PATH`,
    });
  });
});

describe("what conda-mcp is started with", () => {
  const conda = () => join(full, "bin", "conda");

  test.each([
    [
      ["catalog", "--json"],
      ["catalog", "--json", "--conda", "<conda>"],
    ],
    [
      ["--allow-write", "--tools", "conda_info"],
      ["--allow-write", "--tools", "conda_info", "--conda", "<conda>"],
    ],
    [
      ["--conda", "/opt/other/bin/conda"],
      ["--conda", "/opt/other/bin/conda"],
    ],
    [
      ["--conda=/opt/other", "--help"],
      ["--conda=/opt/other", "--help"],
    ],
    [
      ["--", "-x"],
      ["--", "-x", "--conda", "<conda>"],
    ],
  ])("arguments %p become %p (a command word stays first)", async (args, expected) => {
    const [outcome] = await plan([{ args, env: {}, prefix: full, on_win: false }]);
    expect(outcome).toEqual({
      argv: [
        join(full, "bin", "conda-mcp"),
        ...expected.map((a) => (a === "<conda>" ? conda() : a)),
      ],
      via: conda(),
    });
  });

  test("CONDA_EXE names the running conda only when it lies inside conda's prefix", async () => {
    const binary = { CONDA_MCP_BINARY: explicit };
    const outcomes = await plan([
      {
        args: [],
        env: { ...binary, CONDA_EXE: join(bare, "condabin", "conda") },
        prefix: bare,
        on_win: false,
      },
      {
        args: [],
        env: { ...binary, CONDA_EXE: join(full, "bin", "conda") },
        prefix: bare,
        on_win: false,
      },
    ]);
    expect(outcomes.map((o) => ("via" in o ? o.via : o.error))).toEqual([
      join(bare, "condabin", "conda"),
      join(bare, "bin", "conda"),
    ]);
  });

  test("without a conda executable in the prefix, --conda must be given", async () => {
    const outcomes = await plan([
      { args: [], env: { CONDA_MCP_BINARY: explicit }, prefix: pathDir, on_win: false },
      {
        args: ["--conda", "/c"],
        env: { CONDA_MCP_BINARY: explicit },
        prefix: pathDir,
        on_win: false,
      },
    ]);
    expect(outcomes).toEqual([
      {
        error: `conda mcp: cannot tell which conda executable is running (no conda in ${pathDir}); give conda-mcp's --conda PATH`,
      },
      { argv: [explicit, "--conda", "/c"], via: null },
    ]);
  });
});

test("the plugin's version is package.json's", async () => {
  const pyproject = Bun.TOML.parse(await Bun.file(join(PLUGIN_DIR, "pyproject.toml")).text()) as {
    project: { version: string };
  };
  const pkg = await Bun.file(join(REPO, "package.json")).json();
  expect(pyproject.project.version).toBe(pkg.version);
});
