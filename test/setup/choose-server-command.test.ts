import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "../../src/config/parse-config.ts";
import { chooseServerCommand } from "../../src/setup/choose-server-command.ts";

let root: string;
let conda: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "conda-mcp-choose-"));
  conda = join(root, "prefix", "bin", "conda");
  await mkdir(join(root, "prefix", "bin"), { recursive: true });
  await writeFile(conda, "#!/bin/sh\n");
  await chmod(conda, 0o755);
});
afterAll(() => rm(root, { recursive: true, force: true }));

function config(argv: string[], env: Record<string, string> = {}) {
  return parseConfig(["setup", "cursor", ...argv], {
    env: { PATH: "/nowhere", ...env },
    platform: "linux",
    home: "/home/u",
    cwd: root,
  });
}

const CHECKOUT = { execPath: "/opt/bun/bin/bun", mainPath: "/src/conda-mcp/src/main.ts" };
const COMPILED = { execPath: "/usr/local/bin/conda-mcp", mainPath: "/$bunfs/root/conda-mcp" };

test("started by the conda plugin, the command is that conda's `mcp`, with the serving options", () => {
  // The plugin sets CONDA_MCP_VIA_CONDA and appends --conda with the same conda.
  const chosen = chooseServerCommand(
    config(["--allow-write", "--tools=conda_info", "--conda", conda], {
      CONDA_MCP_VIA_CONDA: conda,
    }),
    CHECKOUT,
  );
  expect(chosen).toEqual({
    command: conda,
    args: ["mcp", "--allow-write", "--tools", "conda_info"],
  });
});

test("given another conda than the plugin's, `conda mcp` keeps serving that one", () => {
  const other = join(root, "prefix", "bin", "conda");
  const plugin = join(root, "elsewhere", "bin", "conda");
  const chosen = chooseServerCommand(
    config(["--conda", other, "--allow-write"], { CONDA_MCP_VIA_CONDA: plugin }),
    COMPILED,
  );
  expect(chosen).toEqual({ command: plugin, args: ["mcp", "--conda", other, "--allow-write"] });
});

test("started by the npm launcher, the command is npx with the package, not its cached binary", () => {
  const chosen = chooseServerCommand(
    config(["--conda", conda, "--read-only-tools"], { CONDA_MCP_VIA_NPX: "conda-mcp" }),
    COMPILED,
  );
  expect(chosen).toEqual({
    command: "npx",
    args: ["-y", "conda-mcp", "--conda", conda, "--read-only-tools"],
  });
});

test("a compiled binary names itself and the absolute conda found now", () => {
  const chosen = chooseServerCommand(config(["--read-only-tools"], { CONDA_EXE: conda }), COMPILED);
  expect(chosen).toEqual({
    command: "/usr/local/bin/conda-mcp",
    args: ["--conda", conda, "--read-only-tools"],
  });
});

test("a Windows compiled binary is recognised by its virtual B:\\~BUN folder", () => {
  const windows = { execPath: "C:\\bin\\conda-mcp.exe", mainPath: "B:\\~BUN\\root\\conda-mcp.exe" };
  expect(chooseServerCommand(config(["--conda", conda]), windows).command).toBe(windows.execPath);
});

test("from a checkout, the command is bun and the arguments start with main.ts", () => {
  const chosen = chooseServerCommand(config(["--conda", "prefix", "--timeout", "90"]), CHECKOUT);
  // A prefix folder given relative to the working directory becomes its absolute conda.
  expect(chosen).toEqual({
    command: "/opt/bun/bin/bun",
    args: ["/src/conda-mcp/src/main.ts", "--conda", conda, "--timeout", "90"],
  });
});

test("a relative CONDA_MCP_VIA_CONDA is not trusted: the conda is found as usual", () => {
  const chosen = chooseServerCommand(
    config(["--conda", conda], { CONDA_MCP_VIA_CONDA: "conda" }),
    COMPILED,
  );
  expect(chosen.command).toBe(COMPILED.execPath);
});

test("setup-only options and --conda are not serving options written into the entry", () => {
  const chosen = chooseServerCommand(
    config(["--print", "--scope", "project", "--conda", conda, "--no-cache"]),
    COMPILED,
  );
  expect(chosen.args).toEqual(["--conda", conda, "--no-cache"]);
});

test("without a conda to find, setup says how to point it at one", () => {
  expect(() => chooseServerCommand(config([]), COMPILED)).toThrow("conda was not found");
});
