import { afterAll, beforeAll, describe } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Discovery, discover } from "../../src/discover/discover.ts";
import { runProcess } from "../../src/execute/run-process.ts";

/**
 * The real conda the suite may use: `CONDA_MCP_TEST_CONDA` names its executable (CI builds one
 * from the team's real-conda kit; a user may name their own). Unset, real-conda tests skip.
 */
export const REAL_CONDA: string | null = process.env.CONDA_MCP_TEST_CONDA || null;

/**
 * `describe` for tests that need the real conda: their names end in `[real conda]` (CI counts
 * them), and without CONDA_MCP_TEST_CONDA they are skipped with a name that says why.
 */
export function describeRealConda(name: string, body: () => void): void {
  const label = REAL_CONDA
    ? `${name} [real conda]`
    : `${name} [real conda] (skipped: CONDA_MCP_TEST_CONDA names no conda)`;
  describe.skipIf(!REAL_CONDA)(label, body);
}

/**
 * A private place to run the real conda: its own HOME (no `~/.condarc`, environments.txt or
 * caches of the user's), its own envs and pkgs folders, and a local channel of tiny packages, so
 * a test touches nothing of the conda's owner except what conda writes beside its own root.
 */
export interface RealCondaSandbox {
  condaExe: string;
  discovery: Discovery;
  /** The temporary folder holding home/, envs/, pkgs/ and channel/; removed by cleanup(). */
  root: string;
  home: string;
  envsDir: string;
  pkgsDir: string;
  /** `file://` URL of the sandbox channel (tinyhello 1.0/1.1, tinyworld 1.0; noarch). */
  channel: string;
  /** The complete environment for conda and for the server that runs it. */
  env: Record<string, string>;
  /** Runs conda directly (not through the server) with the sandbox environment. */
  conda(args: string[], options?: { cwd?: string }): Promise<CondaRun>;
  cleanup(): Promise<void>;
}

/** What a direct conda run printed. */
export interface CondaRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

const CHANNEL_SCRIPT = join(import.meta.dir, "make-test-channel.py");

/**
 * The sandbox of one test file or `describe` block: made before its tests when REAL_CONDA is
 * set, removed after them. Tests read it with the returned function.
 */
export function useRealCondaSandbox(
  options?: Parameters<typeof makeRealCondaSandbox>[0],
): () => RealCondaSandbox {
  let sandbox: RealCondaSandbox | undefined;
  beforeAll(async () => {
    if (REAL_CONDA) sandbox = await makeRealCondaSandbox(options);
  }, 120_000);
  afterAll(() => sandbox?.cleanup());
  return () => {
    if (sandbox === undefined) throw new Error("the real-conda sandbox was not made");
    return sandbox;
  };
}

/** Builds a sandbox around the real conda; call only when REAL_CONDA is set. */
export async function makeRealCondaSandbox(
  options: {
    /** Add make-test-channel.py's slow packages (tinyslow, tinybulk) to the channel. */
    rollbackPackages?: boolean;
  } = {},
): Promise<RealCondaSandbox> {
  if (!REAL_CONDA) throw new Error("CONDA_MCP_TEST_CONDA is not set");
  const condaExe = REAL_CONDA;
  const root = await mkdtemp(join(tmpdir(), "conda-mcp-real-"));
  const home = join(root, "home");
  const envsDir = join(root, "envs");
  const pkgsDir = join(root, "pkgs");
  const channelDir = join(root, "channel");
  await Promise.all([home, envsDir, pkgsDir].map((dir) => mkdir(dir, { recursive: true })));
  const env: Record<string, string> = {
    HOME: home,
    PATH: "/usr/local/bin:/usr/bin:/bin",
    LANG: "C.UTF-8",
    CONDA_ENVS_DIRS: envsDir,
    CONDA_PKGS_DIRS: pkgsDir,
    // Nothing in these tests may reach a network.
    CONDA_OFFLINE: "true",
    // A server run from source (`bun src/main.ts`) would keep bun's transpiler cache in this
    // HOME, where the tests' snapshots of the sandbox would see it appear.
    BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0",
  };
  try {
    const discovery = await discover({
      explicitPath: condaExe,
      env,
      platform: process.platform,
      timeoutMs: 120_000,
      cacheDir: null,
    });
    const run = async (argv: string[], timeoutMs: number, cwd?: string): Promise<CondaRun> => {
      const [command = "", ...rest] = argv;
      const result = await runProcess(
        { command, argv: rest, env, ...(cwd ? { cwd } : {}) },
        { platform: process.platform, timeoutMs, maxOutputBytes: 16 * 1024 * 1024 },
      );
      return { exitCode: result.exit_code, stdout: result.stdout, stderr: result.stderr };
    };
    const made = await run(
      [
        discovery.installation.python,
        "-B",
        CHANNEL_SCRIPT,
        channelDir,
        ...(options.rollbackPackages ? ["--rollback"] : []),
      ],
      60_000,
    );
    if (made.exitCode !== 0) throw new Error(`make-test-channel.py failed: ${made.stderr}`);
    const conda = (args: string[], options: { cwd?: string } = {}) =>
      run([...discovery.installation.condaArgv, ...args], 300_000, options.cwd);
    return {
      condaExe,
      discovery,
      root,
      home,
      envsDir,
      pkgsDir,
      channel: `file://${channelDir}`,
      env,
      conda,
      cleanup: () => rm(root, { recursive: true, force: true }),
    };
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}

/** Whether the sandbox's conda was built by the team's kit (its root holds `.real-conda-kit`). */
export function isKitConda(sandbox: RealCondaSandbox): boolean {
  return existsSync(join(sandbox.discovery.installation.rootPrefix, ".real-conda-kit"));
}

/**
 * The site folder holding the conda package, when a test may install a plugin into it: on the
 * kit's conda, or when CONDA_MCP_TEST_ALLOW_PLUGIN_INSTALL=1 says the user's may be changed.
 */
export function pluginSitePackages(sandbox: RealCondaSandbox): string | null {
  const sitePackages = sandbox.discovery.installation.siteDirs.find((dir) =>
    existsSync(join(dir, "conda", "__init__.py")),
  );
  const mayChange = isKitConda(sandbox) || process.env.CONDA_MCP_TEST_ALLOW_PLUGIN_INSTALL === "1";
  return sitePackages !== undefined && mayChange ? sitePackages : null;
}
