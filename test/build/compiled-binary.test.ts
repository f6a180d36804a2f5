import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { binaryName, compileBinary, hostTarget } from "../../scripts/build.ts";
import { exampleManifest, writeManifestFile } from "../completion/manifest-fixture.ts";
import { callCondaInfo } from "../support/call-conda-info.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { describeRealConda, useRealCondaSandbox } from "../support/real-conda.ts";
import { runProgram } from "../support/run-program.ts";
import { isMarked, markSnapshots } from "../support/snapshot-files.ts";
import { connectStdio, startServer, withDeadline } from "../support/start-server.ts";

const BUN = process.execPath;
const BUILD_SCRIPT = join(import.meta.dir, "..", "..", "scripts", "build.ts");

// `bun build --compile` and the two autoload switches exist in this bun (1.2+); without them
// there is nothing to test, and saying so beats a confusing failure.
function compileUnavailable(): string | null {
  try {
    const help = Bun.spawnSync([BUN, "build", "--help"], { stdout: "pipe", stderr: "pipe" });
    const text = `${help.stdout.toString()}${help.stderr.toString()}`;
    for (const flag of [
      "--compile",
      "--no-compile-autoload-dotenv",
      "--no-compile-autoload-bunfig",
    ]) {
      if (!text.includes(flag)) return `this bun's \`bun build\` has no ${flag}`;
    }
    hostTarget();
    return null;
  } catch (error) {
    return `bun build --compile is unavailable here: ${error instanceof Error ? error.message : error}`;
  }
}

const unavailable = compileUnavailable();
if (unavailable) console.warn(`skipping test/build/compiled-binary.test.ts: ${unavailable}`);

let work: string;
let binary: string;
let fixture: FixtureConda;
/** Where a user would put the binary: outside the repository, no node_modules anywhere above. */
let elsewhere: string;

/** Runs a program by argv in `cwd` with only the given environment. */
const runIn = (argv: string[], cwd: string, env: Record<string, string>) =>
  runProgram(argv, { cwd, env, timeoutMs: 60_000 });

/** Runs the relocated binary from `cwd` with only the given environment. */
function runBinary(args: string[], cwd: string, env: Record<string, string>) {
  return runIn([join(elsewhere, "conda-mcp"), ...args], cwd, env);
}

describe.skipIf(unavailable !== null)("the compiled release binary", () => {
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "conda-mcp-build-"));
    fixture = await makeFixtureConda({ withCompletion: "0.3.2" });
    // The release script itself builds the host binary, once for the whole file.
    const build = await runProgram([BUN, BUILD_SCRIPT, "--target", "host", "--outdir", work], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: work },
      timeoutMs: 240_000,
    });
    if (build.exitCode !== 0) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
    binary = join(work, binaryName(hostTarget()));
    elsewhere = await mkdtemp(join(tmpdir(), "conda-mcp-elsewhere-"));
    await copyFile(binary, join(elsewhere, "conda-mcp"));
    await chmod(join(elsewhere, "conda-mcp"), 0o755);
  }, 300_000);

  afterAll(async () => {
    await fixture?.cleanup();
    if (work) await rm(work, { recursive: true, force: true });
    if (elsewhere) await rm(elsewhere, { recursive: true, force: true });
  });

  test("the build writes a SHA256SUMS line that matches the binary", async () => {
    const sums = await readFile(join(work, "SHA256SUMS"), "utf8");
    const digest = createHash("sha256")
      .update(await readFile(binary))
      .digest("hex");
    expect(sums).toBe(`${digest}  ${binaryName(hostTarget())}\n`);
  });

  test("it runs outside the repository with no node_modules: --version and catalog", async () => {
    for (let dir = elsewhere; dir !== dirname(dir); dir = dirname(dir)) {
      expect(existsSync(join(dir, "node_modules"))).toBe(false);
    }
    const env = { ...fixture.env };
    const version = await runBinary(["--version"], elsewhere, env);
    expect(version.exitCode).toBe(0);
    const packageJson = await Bun.file(join(import.meta.dir, "..", "..", "package.json")).json();
    expect(version.stdout).toBe(`conda-mcp ${packageJson.version}\n`);

    const catalog = await runBinary(
      ["catalog", "--conda", fixture.condaExe, "--no-cache"],
      elsewhere,
      env,
    );
    expect(catalog.stderr).toBe("");
    expect(catalog.exitCode).toBe(0);
    expect(catalog.stdout).toContain("conda 26.7.0 at ");
    expect(catalog.stdout).toContain("conda_env_config_vars_set");
    expect(catalog.stdout).toContain("conda_greet");
  });

  test("outside the repository it decodes the completion manifest with the embedded msgpackr", async () => {
    const cacheDir = join(elsewhere, "completion-cache");
    await mkdir(cacheDir);
    await writeManifestFile(cacheDir, await exampleManifest());
    const transportEnv = { ...fixture.env, CONDA_COMPLETION_CACHE_DIR: cacheDir };
    const server = await withDeadline(
      startBinaryServer(join(elsewhere, "conda-mcp"), transportEnv, elsewhere),
      60_000,
      "starting the relocated binary",
    );
    try {
      const result = (await server.client.callTool({
        name: "conda_cli_command",
        arguments: { command_path: ["env", "list"] },
      })) as CallToolResult;
      const out = result.structuredContent as { availability: string; command_path?: string[] };
      expect(out.availability).toBe("available");
      expect(out.command_path).toEqual(["env", "list"]);
    } finally {
      await server.close();
    }
  });

  test("setup writes the binary's own path as the command, with the absolute conda", async () => {
    const home = await mkdtemp(join(work, "setup-home-"));
    const run = await runBinary(
      ["setup", "cursor", "--print", "--conda", fixture.condaExe, "--allow-write"],
      elsewhere,
      { ...fixture.env, HOME: home },
    );
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      mcpServers: {
        conda: {
          command: join(elsewhere, "conda-mcp"),
          args: ["--conda", fixture.condaExe, "--allow-write"],
        },
      },
    });
  });

  test("it does not load .env or bunfig.toml (preload) from its working directory", async () => {
    const cwd = await hostileDirectory();
    // PATH is an empty folder: only a loaded .env (CONDA_EXE) could let discovery find conda.
    const emptyBin = await mkdtemp(join(work, "empty-bin-"));
    const env = { PATH: emptyBin, HOME: fixture.home, LANG: "C.UTF-8" };
    const run = await runBinary(["catalog", "--no-cache"], cwd, env);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("conda was not found");
    expect(await Bun.file(join(cwd, "preload-ran")).exists()).toBe(false);
  });

  test("the same directory does change a binary compiled without the two flags (the check above can fail)", async () => {
    const cwd = await hostileDirectory();
    const source = join(work, "print-conda-exe.ts");
    await writeFile(source, "process.stdout.write(String(process.env.CONDA_EXE));\n");
    const unsafe = join(work, "print-conda-exe-unsafe");
    const safe = join(work, "print-conda-exe-safe");
    const env = { PATH: "/usr/bin:/bin", HOME: work };
    // Compiled by hand without the release script, which always adds the flags.
    const build = await runProgram([BUN, "build", "--compile", source, "--outfile", unsafe], {
      env,
      timeoutMs: 120_000,
    });
    expect(build.exitCode).toBe(0);
    await compileBinary(null, false, safe, BUN, source);

    const run = (program: string) => runIn([program], cwd, env);
    const safeRun = await run(safe);
    expect(safeRun.stdout).toBe("undefined");
    expect(await Bun.file(join(cwd, "preload-ran")).exists()).toBe(false);

    const unsafeRun = await run(unsafe);
    expect(unsafeRun.stdout).toBe(fixture.condaExe);
    expect(await Bun.file(join(cwd, "preload-ran")).exists()).toBe(true);
  }, 150_000);

  test("an SDK client over stdio lists tools, reads capabilities and calls conda_info", async () => {
    // start-server.ts runs CONDA_MCP_TEST_BINARY when set; it reads it when called.
    const previous = process.env.CONDA_MCP_TEST_BINARY;
    process.env.CONDA_MCP_TEST_BINARY = binary;
    const starting = startServer({ conda: fixture.condaExe, env: fixture.env });
    if (previous === undefined) delete process.env.CONDA_MCP_TEST_BINARY;
    else process.env.CONDA_MCP_TEST_BINARY = previous;
    const server = await withDeadline(starting, 60_000, "starting the binary");
    try {
      const { tools } = await server.client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toContain("conda_info");
      expect(names).toContain("conda_env_config_vars_set");
      expect(names).toContain("conda_cli_command");

      const resource = await server.client.readResource({ uri: "conda://capabilities" });
      const first = resource.contents[0];
      const capabilities = JSON.parse(first && "text" in first ? first.text : "null");
      expect(capabilities.conda_version).toBe("26.7.0");
      expect(capabilities.generated_tools).toContain("conda_info");

      expect((await callCondaInfo(server.client, 60_000)).conda_version).toBe("26.7.0");
    } finally {
      await server.close();
    }
  });

  test("warm, it answers the handshake from the startup snapshot, then serves calls", async () => {
    // A private cache: the first start records the snapshot, the second answers from it.
    const env = { ...fixture.env, XDG_CACHE_HOME: join(work, "warm-cache") };
    const connect = async () => {
      const client = new Client({ name: "conda-mcp-tests", version: "0.0.0" });
      await withDeadline(
        client.connect(
          new StdioClientTransport({
            command: join(elsewhere, "conda-mcp"),
            args: ["--conda", fixture.condaExe],
            env,
            stderr: "pipe",
          }),
        ),
        60_000,
        "starting the binary",
      );
      return client;
    };
    const first = await connect();
    const listed = await first.listTools();
    await first.close();
    expect(await markSnapshots(join(env.XDG_CACHE_HOME, "conda-mcp"))).toBe(1);

    const warm = await connect();
    try {
      const { tools } = await warm.listTools();
      expect(isMarked(tools)).toBe(true);
      expect(tools.map((t) => t.name)).toEqual(listed.tools.map((t) => t.name));
      const result = (await warm.callTool({
        name: "conda_info",
        arguments: { json: true },
      })) as CallToolResult;
      expect((result.structuredContent as { exit_code: number }).exit_code).toBe(0);
    } finally {
      await warm.close();
    }
  });

  describeRealConda("on the real conda", () => {
    const sandbox = useRealCondaSandbox();

    test("an SDK client lists its tools and calls conda_info and conda_run", async () => {
      const previous = process.env.CONDA_MCP_TEST_BINARY;
      process.env.CONDA_MCP_TEST_BINARY = binary;
      const starting = startServer({
        conda: sandbox().condaExe,
        env: sandbox().env,
        args: ["--allow-exec"],
      });
      if (previous === undefined) delete process.env.CONDA_MCP_TEST_BINARY;
      else process.env.CONDA_MCP_TEST_BINARY = previous;
      const server = await withDeadline(starting, 60_000, "starting the binary");
      try {
        const names = (await server.client.listTools()).tools.map((t) => t.name);
        expect(names).toEqual(
          expect.arrayContaining(["conda_info", "conda_menuinst", "conda_run"]),
        );
        expect((await callCondaInfo(server.client)).conda_version).toBe(
          sandbox().discovery.installation.condaVersion,
        );
        const ran = (await server.client.callTool(
          { name: "conda_run", arguments: { executable_call: ["echo", "-version", "--json"] } },
          undefined,
          { timeout: 120_000 },
        )) as CallToolResult;
        expect((ran.structuredContent as { stdout: string }).stdout).toBe("-version --json\n");
        // conda_execute asks the embedded fact-finder, which refuses deleting base.
        const refused = (await server.client.callTool(
          {
            name: "conda_execute",
            arguments: { argv: ["--js", "remove", "--all", "-yn", "base"] },
          },
          undefined,
          { timeout: 120_000 },
        )) as CallToolResult;
        expect(refused.isError).toBe(true);
        expect(JSON.stringify(refused.content)).toContain(
          "Start conda-mcp with --allow-destructive",
        );
        const help = (await server.client.callTool(
          { name: "conda_execute", arguments: { argv: ["remove", "--all", "-n", "base", "-h"] } },
          undefined,
          { timeout: 120_000 },
        )) as CallToolResult;
        expect((help.structuredContent as { exit_code: number }).exit_code).toBe(0);
      } finally {
        await server.close();
      }
    }, 180_000);
  });
});

/**
 * A fresh working directory that attacks a binary which autoloads: a bunfig.toml whose preload
 * writes `preload-ran`, and a .env pointing CONDA_EXE at the fixture conda.
 */
async function hostileDirectory(): Promise<string> {
  const cwd = await mkdtemp(join(work, "cwd-"));
  await writeFile(join(cwd, "bunfig.toml"), 'preload = ["./preload.ts"]\n');
  await writeFile(
    join(cwd, "preload.ts"),
    'require("node:fs").writeFileSync(require("node:path").join(process.cwd(), "preload-ran"), "yes");\n',
  );
  await writeFile(join(cwd, ".env"), `CONDA_EXE=${fixture.condaExe}\n`);
  return cwd;
}

/** An SDK client connected to `command` started in `cwd`, with the fixture conda. */
function startBinaryServer(command: string, env: Record<string, string>, cwd: string) {
  return connectStdio(
    { command, args: ["--conda", fixture.condaExe, "--no-cache"], env, cwd },
    "the binary",
  );
}
