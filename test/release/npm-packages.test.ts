import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { binaryName, hostTarget, REPO_ROOT } from "../../scripts/build.ts";
import {
  buildNpmPackages,
  listedBinaries,
  NPM_PLATFORMS,
  type NpmPackage,
  parseNpmPackagesArgs,
} from "../../scripts/build-npm-packages.ts";
import { callCondaInfo } from "../support/call-conda-info.ts";
import { buildHostRelease, type HostReleaseBuild } from "../support/host-release-build.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { runProgram } from "../support/run-program.ts";
import { initializeLine } from "../support/spawn-raw-server.ts";
import { connectStdio, withDeadline } from "../support/start-server.ts";

const NPM = Bun.which("npm");
const NPX = Bun.which("npx");
const NODE = Bun.which("node");
const WINDOWS = process.platform === "win32";
const VERSION: string = (await Bun.file(join(REPO_ROOT, "package.json")).json()).version;
const HOST = NPM_PLATFORMS[hostTarget()];
const HOST_PACKAGE = `@conda-mcp/${HOST.key}`;

const missing = !NPM || !NPX || !NODE ? "npm, npx or node is not on PATH" : null;
if (missing) console.warn(`skipping test/release/npm-packages.test.ts: ${missing}`);

/** Runs argv in `cwd` with exactly `env`, through the server's own process runner. */
const run = (argv: string[], cwd: string, env: Record<string, string>) =>
  runProgram(argv, { cwd, env, timeoutMs: 180_000 });

let work: string;
let fixture: FixtureConda;
let build: HostReleaseBuild | undefined;
let binary: string;
let packages: NpmPackage[];
let tarballs: Map<string, string>;
/** A project with the launcher and the host's platform package installed from the tarballs. */
let project: string;

/**
 * npm with a private cache and HOME, offline, and a registry nothing listens on: were it to
 * reach for the network anyway, it would fail instead of fetching.
 */
function npmEnv(): Record<string, string> {
  return {
    PATH: [dirname(NODE as string), dirname(NPM as string), "/usr/bin", "/bin"].join(delimiter),
    HOME: join(work, "npm-home"),
    npm_config_cache: join(work, "npm-cache"),
    npm_config_registry: "http://127.0.0.1:9/",
    npm_config_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
  };
}

/** The fixture conda's environment, plus node for the launcher's `#!/usr/bin/env node`. */
function serverEnv(): Record<string, string> {
  return { ...fixture.env, PATH: `${dirname(NODE as string)}${delimiter}${fixture.env.PATH}` };
}

/** A new project folder with `tarballs` installed by `npm install --offline`. */
async function installProject(name: string, tarballPaths: string[]): Promise<string> {
  const dir = join(work, name);
  await mkdir(dir);
  await writeFile(join(dir, "package.json"), '{ "private": true }\n');
  const install = await run(
    [NPM as string, "install", "--offline", "--no-audit", "--no-fund", ...tarballPaths],
    dir,
    npmEnv(),
  );
  if (install.exitCode !== 0) throw new Error(`npm install failed:\n${install.stderr}`);
  return dir;
}

/** The installed launcher as a command: its .bin link, or `node <script>` on Windows. */
function launcher(dir: string): string[] {
  return WINDOWS
    ? [NODE as string, join(dir, "node_modules", "conda-mcp", "bin", "conda-mcp.js")]
    : [join(dir, "node_modules", ".bin", "conda-mcp")];
}

describe.skipIf(missing !== null)("the npm packages", () => {
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "conda-mcp-npm-"));
    fixture = await makeFixtureConda();
    build = await buildHostRelease();
    binary = build.binary;
    packages = await buildNpmPackages({
      dist: build.dist,
      outdir: join(work, "packages"),
      repository: "https://github.com/example/conda-mcp",
      allTargets: false,
    });
    const destination = join(work, "tarballs");
    await mkdir(destination);
    tarballs = new Map();
    for (const pkg of packages) {
      const pack = await run(
        [NPM as string, "pack", pkg.dir, "--pack-destination", destination, "--json"],
        work,
        npmEnv(),
      );
      if (pack.exitCode !== 0) throw new Error(`npm pack ${pkg.dir} failed:\n${pack.stderr}`);
      const [{ filename }] = JSON.parse(pack.stdout) as [{ filename: string }];
      tarballs.set(pkg.name, join(destination, filename));
    }
    project = await installProject("project", [
      tarballs.get("conda-mcp") as string,
      tarballs.get(HOST_PACKAGE) as string,
    ]);
  }, 300_000);

  afterAll(async () => {
    await fixture?.cleanup();
    await build?.cleanup();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test("the launcher pins an optional dependency per platform package; that one carries os, cpu and libc", async () => {
    expect(packages.map((p) => p.name)).toEqual([HOST_PACKAGE, "conda-mcp"]);
    const read = (pkg: NpmPackage) => Bun.file(join(pkg.dir, "package.json")).json();
    const [platform, main] = await Promise.all(packages.map(read));
    expect(main).toEqual({
      name: "conda-mcp",
      version: VERSION,
      description: expect.any(String),
      license: "BSD-3-Clause",
      repository: { type: "git", url: "https://github.com/example/conda-mcp" },
      bin: { "conda-mcp": "bin/conda-mcp.js" },
      engines: { node: ">=18" },
      optionalDependencies: { [HOST_PACKAGE]: VERSION },
    });
    expect(main.dependencies).toBeUndefined();
    expect(platform.name).toBe(HOST_PACKAGE);
    expect(platform.version).toBe(VERSION);
    expect(platform.os).toEqual([HOST.os]);
    expect(platform.cpu).toEqual([HOST.cpu]);
    expect(platform.libc).toEqual(HOST.libc ? [HOST.libc] : undefined);
    expect(platform.bin).toBeUndefined();
    // The repository's own package.json stays private: only these generated ones are published.
    expect((await Bun.file(join(REPO_ROOT, "package.json")).json()).private).toBe(true);
  });

  test("the installed platform package holds the built binary, executable", async () => {
    const installed = join(
      project,
      "node_modules",
      HOST_PACKAGE,
      "bin",
      `conda-mcp${WINDOWS ? ".exe" : ""}`,
    );
    const digest = async (path: string) =>
      createHash("sha256")
        .update(await readFile(path))
        .digest("hex");
    expect(await digest(installed)).toBe(await digest(binary));
    if (!WINDOWS) expect((await stat(installed)).mode & 0o111).toBe(0o111);
  });

  test("`npx --offline conda-mcp --version` in the project runs the binary", async () => {
    const version = await run(
      [NPX as string, "--offline", "conda-mcp", "--version"],
      project,
      npmEnv(),
    );
    expect(version.stderr).toBe("");
    expect(version.stdout).toBe(`conda-mcp ${VERSION}\n`);
    expect(version.exitCode).toBe(0);
  });

  test("the .bin command prints the binary's own --help, and ends with the binary's exit code", async () => {
    const env = serverEnv();
    const viaLauncher = await run([...launcher(project), "--help"], project, env);
    const direct = await run([binary, "--help"], project, env);
    expect(viaLauncher.exitCode).toBe(0);
    expect(viaLauncher.stdout).toContain("Usage:");
    expect(viaLauncher.stdout).toBe(direct.stdout);

    const bad = await run([...launcher(project), "--no-such-option"], project, env);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('unknown option "--no-such-option"');
  });

  test("`conda-mcp setup` run through the launcher writes `npx -y conda-mcp`, not the cached binary", async () => {
    const printed = await run(
      [...launcher(project), "setup", "cursor", "--print", "--conda", fixture.condaExe],
      project,
      serverEnv(),
    );
    expect(printed.exitCode).toBe(0);
    const entry = JSON.parse(printed.stdout).mcpServers.conda;
    expect(entry).toEqual({
      command: "npx",
      args: ["-y", "conda-mcp", "--conda", fixture.condaExe],
    });
  });

  test("an SDK client over stdio with the installed launcher as command lists tools and calls conda_info", async () => {
    const [command = "", ...args] = launcher(project);
    const server = await connectStdio(
      {
        command,
        args: [...args, "--conda", fixture.condaExe, "--no-cache"],
        env: serverEnv(),
        cwd: project,
      },
      "launcher",
      60_000,
    );
    try {
      const { tools } = await server.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(["conda_info", "conda_env_config_vars_set", "conda_greet"]),
      );
      // The SDK's default request timeout, as before.
      expect((await callCondaInfo(server.client, 60_000)).conda_version).toBe("26.7.0");
    } finally {
      await server.close();
    }
  });

  describe.skipIf(WINDOWS)("signals", () => {
    /** Starts `command` serving on stdio and waits for its answer to `initialize`. */
    async function startServing(command: string[], detached: boolean) {
      const proc = Bun.spawn([...command, "--conda", fixture.condaExe, "--no-cache"], {
        cwd: project,
        env: serverEnv(),
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
        detached,
      });
      proc.stdin.write(initializeLine(1));
      proc.stdin.flush();
      const reader = proc.stdout.getReader();
      let text = "";
      await withDeadline(
        (async () => {
          while (!text.includes('"id":1')) {
            const { value, done } = await reader.read();
            if (done) throw new Error("stdout closed before the initialize answer");
            text += new TextDecoder().decode(value);
          }
        })(),
        60_000,
        "the initialize answer",
      );
      reader.releaseLock();
      return proc;
    }

    async function childrenOf(pid: number): Promise<number[]> {
      const ps = await run(["ps", "-A", "-o", "pid=,ppid="], project, { PATH: "/usr/bin:/bin" });
      return ps.stdout
        .split("\n")
        .map((line) => line.trim().split(/\s+/).map(Number))
        .filter(([, ppid]) => ppid === pid)
        .map(([child]) => child as number);
    }

    function alive(pid: number): boolean {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    }

    test("SIGTERM to the launcher stops the binary cleanly, and the launcher exits 0 as the binary does", async () => {
      const direct = await startServing([binary], false);
      direct.kill("SIGTERM");
      await withDeadline(direct.exited, 30_000, "the binary's exit");
      expect([direct.exitCode, direct.signalCode]).toEqual([0, null]);

      const proc = await startServing(launcher(project), false);
      const [child] = await childrenOf(proc.pid);
      expect(child).toBeNumber();
      proc.kill("SIGTERM");
      await withDeadline(proc.exited, 30_000, "the launcher's exit");
      expect([proc.exitCode, proc.signalCode]).toEqual([0, null]);
      expect(alive(child as number)).toBe(false);
    });

    test("a terminal's Ctrl-C (SIGINT to the whole process group) reaches the binary once: it still stops cleanly", async () => {
      // The launcher leads its own group here, as a command started from a shell does.
      const proc = await startServing(launcher(project), true);
      const [child] = await childrenOf(proc.pid);
      process.kill(-proc.pid, "SIGINT");
      await withDeadline(proc.exited, 30_000, "the launcher's exit");
      // A second SIGINT would have killed the server at once (exit by signal, no clean stop).
      expect([proc.exitCode, proc.signalCode]).toEqual([0, null]);
      expect(alive(child as number)).toBe(false);
    });

    test("killed by a signal, the binary's launcher dies of the same signal", async () => {
      const proc = await startServing(launcher(project), false);
      const [child] = await childrenOf(proc.pid);
      process.kill(child as number, "SIGKILL");
      await withDeadline(proc.exited, 30_000, "the launcher's exit");
      expect(proc.signalCode as string | null).toBe("SIGKILL");
    });
  });

  test("without its platform package the launcher names the package and how to install it", async () => {
    // npm skips an optional dependency it cannot fetch, as it does with --omit=optional.
    const bare = await installProject("bare", [tarballs.get("conda-mcp") as string]);
    const result = await run([...launcher(bare), "--version"], bare, serverEnv());
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(
      `the package ${HOST_PACKAGE}, which holds the conda-mcp binary`,
    );
    expect(result.stderr).toContain(`npm install ${HOST_PACKAGE}@${VERSION}\n`);
  });
});

describe("scripts/build-npm-packages.ts", () => {
  test.each([
    [[], { dist: join(REPO_ROOT, "dist"), outdir: join(REPO_ROOT, "dist", "npm") }],
    [["--dist", "/tmp/d"], { dist: "/tmp/d", outdir: "/tmp/d/npm" }],
    [
      ["--dist=/tmp/d", "--outdir", "/tmp/o", "--repository", "https://x/y", "--all-targets"],
      { dist: "/tmp/d", outdir: "/tmp/o", repository: "https://x/y", allTargets: true },
    ],
  ])("arguments %p", (argv, expected) => {
    expect(parseNpmPackagesArgs(argv)).toEqual({
      repository: null,
      allTargets: false,
      ...expected,
    });
  });

  test.each([
    [["--outdir"], "--outdir needs a value"],
    [["--all-targets=yes"], "unknown argument"],
    [["--target", "all"], "unknown argument"],
  ])("arguments %p are refused", (argv, message) => {
    expect(() => parseNpmPackagesArgs(argv)).toThrow(message);
  });

  test("a binary that differs from its SHA256SUMS line, or a missing SHA256SUMS, is refused", async () => {
    const dist = await mkdtemp(join(tmpdir(), "conda-mcp-npm-sums-"));
    try {
      await expect(listedBinaries(dist)).rejects.toThrow("SHA256SUMS is missing");
      const name = binaryName("bun-linux-arm64");
      await writeFile(join(dist, name), "new bytes");
      const stale = createHash("sha256").update("old bytes").digest("hex");
      await writeFile(join(dist, "SHA256SUMS"), `${stale}  ${name}\n`);
      await expect(listedBinaries(dist)).rejects.toThrow("does not match SHA256SUMS");
      await copyFile(join(dist, name), join(dist, "conda-mcp-solaris"));
      await writeFile(join(dist, "SHA256SUMS"), `${stale}  conda-mcp-solaris\n`);
      await expect(listedBinaries(dist)).rejects.toThrow("not a release binary line");
    } finally {
      await rm(dist, { recursive: true, force: true });
    }
  });

  test("--all-targets refuses to write packages unless all six binaries are listed", async () => {
    const dist = await mkdtemp(join(tmpdir(), "conda-mcp-npm-all-"));
    try {
      const name = binaryName("bun-darwin-arm64");
      await writeFile(join(dist, name), "bytes");
      const digest = createHash("sha256").update("bytes").digest("hex");
      await writeFile(join(dist, "SHA256SUMS"), `${digest}  ${name}\n`);
      const options = { dist, outdir: join(dist, "npm"), repository: null, allTargets: true };
      await expect(buildNpmPackages(options)).rejects.toThrow(
        "--all-targets: SHA256SUMS lacks conda-mcp-linux-x64,",
      );
      const written = await buildNpmPackages({ ...options, allTargets: false });
      expect(written.map((p) => p.name)).toEqual(["@conda-mcp/darwin-arm64", "conda-mcp"]);
    } finally {
      await rm(dist, { recursive: true, force: true });
    }
  });
});
