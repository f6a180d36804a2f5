import { expect, test } from "bun:test";
import { chmod, copyFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { callCondaInfo } from "../support/call-conda-info.ts";
import { type KitCondaCopy, useKitCondaCopy } from "../support/copy-kit-conda.ts";
import { hostBinary } from "../support/host-binary.ts";
import { describeRealConda } from "../support/real-conda.ts";
import { startCondaMcp } from "../support/start-conda-mcp.ts";

// `conda mcp` on a real conda: the plugin (conda-plugin/) is pip-installed into a private copy
// of the kit's conda, never into the conda the suite was given.

const PLUGIN_DIR = join(import.meta.dir, "..", "..", "conda-plugin");

// Stands in for conda-mcp: prints its argv (one `arg:` line each), CONDA_MCP_VIA_CONDA, its
// ignored-signal mask (Linux: SigIgn in /proc) and what it read on stdin. A shell, not Python,
// since Python ignores SIGPIPE itself.
const STUB = `#!/bin/sh
for a in "$@"; do printf 'arg:%s\\n' "$a"; done
printf 'via:%s\\n' "$CONDA_MCP_VIA_CONDA"
if [ -r /proc/$$/status ]; then sed -n 's/^SigIgn:[[:space:]]*/sigign:/p' /proc/$$/status; fi
printf 'stdin:'
cat
`;

/** What the stub printed. */
function readStub(stdout: string) {
  const lines = stdout.split("\n");
  const value = (key: string) => lines.find((l) => l.startsWith(`${key}:`))?.slice(key.length + 1);
  const sigign = value("sigign");
  return {
    argv: lines.filter((l) => l.startsWith("arg:")).map((l) => l.slice(4)),
    via: value("via"),
    // SIGPIPE is signal 13: bit 12 of the mask.
    sigpipeIgnored: sigign === undefined ? null : (BigInt(`0x${sigign}`) & (1n << 12n)) !== 0n,
    stdin: stdout.slice(stdout.indexOf("stdin:") + "stdin:".length),
  };
}

let binary = "";

const kit = useKitCondaCopy(async (copy) => {
  const installed = await copy.run([
    copy.python,
    "-m",
    "pip",
    "install",
    "--no-deps",
    "--no-build-isolation",
    "--no-index",
    "--no-cache-dir",
    "--quiet",
    PLUGIN_DIR,
  ]);
  if (installed.exitCode !== 0) throw new Error(`pip install failed: ${installed.stderr}`);
  binary = (await hostBinary()).path;
  await writeFile(join(copy.root, "stub-conda-mcp"), STUB);
  await chmod(join(copy.root, "stub-conda-mcp"), 0o755);
});

/** Puts the binary beside conda (`<root>/bin/conda-mcp`), or takes it away. */
async function besideConda(conda: KitCondaCopy, present: boolean): Promise<void> {
  const path = join(conda.root, "bin", "conda-mcp");
  await rm(path, { force: true });
  if (present) await copyFile(binary, path);
}

describeRealConda("`conda mcp`, conda-mcp's conda plugin", () => {
  test("conda lists it, and `conda mcp --help` prints conda-mcp's own usage", async () => {
    const conda = kit();
    if (!conda) return;
    await besideConda(conda, true);
    const plugins = await conda.run([conda.condaExe, "plugins", "list", "--json"]);
    expect(plugins.stdout).toContain('"conda-mcp"');
    const help = await conda.run([conda.condaExe, "mcp", "--help"]);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toStartWith("conda-mcp 0.1.0: serve your conda to MCP clients");
    expect(help.stdout).toContain("--allow-write");
  });

  test("with no binary beside conda, on PATH or in CONDA_MCP_BINARY it fails in one line naming all three", async () => {
    const conda = kit();
    if (!conda) return;
    await besideConda(conda, false);
    const run = await conda.run([conda.condaExe, "mcp", "--help"]);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      `conda mcp: the conda-mcp binary was not found: set CONDA_MCP_BINARY to its path, install it beside conda as ${join(conda.root, "bin", "conda-mcp")} (conda install conda-mcp), or put conda-mcp on PATH\n`,
    );
  });

  test("conda hands every argument over untouched, then --conda and CONDA_MCP_VIA_CONDA name it", async () => {
    const conda = kit();
    if (!conda) return;
    await besideConda(conda, true);
    // conda's own options (--json, -h, --version) and a `--` reach conda-mcp as typed.
    const args = ["catalog", "--json", "-h", "--version", "--tools", "conda_info", "--", "-x"];
    const run = await conda.run(
      [conda.condaExe, "mcp", ...args],
      { CONDA_MCP_BINARY: join(conda.root, "stub-conda-mcp") },
      "stdin passes through\n",
    );
    expect(run.exitCode).toBe(0);
    expect(readStub(run.stdout)).toEqual({
      argv: [...args, "--conda", conda.condaExe],
      via: conda.condaExe,
      // Python ignores SIGPIPE; the launcher resets it so conda-mcp's children do not inherit it.
      sigpipeIgnored: process.platform === "linux" ? false : null,
      stdin: "stdin passes through\n",
    });
  });

  test("an SDK client started as `conda mcp` lists the tools, none for mcp itself, and calls conda_info", async () => {
    const conda = kit();
    if (!conda) return;
    await besideConda(conda, true);
    const client = await startCondaMcp(conda.condaExe, ["--no-cache"], conda.env);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("conda_info");
      expect(names).not.toContain("conda_mcp");
      const resource = await client.readResource({ uri: "conda://capabilities" });
      const first = resource.contents[0];
      const capabilities = JSON.parse(first && "text" in first ? first.text : "null");
      // --conda was appended: the server serves the conda that started it.
      expect(capabilities.target_executable).toBe(conda.condaExe);
      const mcp = capabilities.catalog.commands.find(
        (c: { path: string[] }) => c.path.join(" ") === "mcp",
      );
      expect(mcp).toMatchObject({ status: "excluded", tool: null });
      expect(mcp.plugin.distribution).toBe("conda-mcp");
      expect((await callCondaInfo(client)).root_prefix).toBe(conda.root);
    } finally {
      await client.close();
    }
  }, 120_000);
});
