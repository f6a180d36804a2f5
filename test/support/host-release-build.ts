import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binaryName, hostTarget } from "../../scripts/build.ts";
import { runProgram } from "./run-program.ts";

/** A `scripts/build.ts --target host` output folder: the binary and its SHA256SUMS. */
export interface HostReleaseBuild {
  /** The folder (scripts/build.ts's --outdir). */
  dist: string;
  /** The host binary in it. */
  binary: string;
  /** Removes the folder. */
  cleanup(): Promise<void>;
}

const BUILD_SCRIPT = join(import.meta.dir, "..", "..", "scripts", "build.ts");

/**
 * Builds the host binary with the release script itself, `--no-bytecode` (the quicker build,
 * which passes the same suites), into a temporary folder; build once per test file, in
 * `beforeAll`, and clean up in `afterAll`.
 */
export async function buildHostRelease(): Promise<HostReleaseBuild> {
  const dist = await mkdtemp(join(tmpdir(), "conda-mcp-release-build-"));
  const cleanup = () => rm(dist, { recursive: true, force: true });
  const build = await runProgram(
    [process.execPath, BUILD_SCRIPT, "--target", "host", "--no-bytecode", "--outdir", dist],
    { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dist }, timeoutMs: 240_000 },
  );
  if (build.exitCode !== 0) {
    await cleanup();
    throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
  }
  return { dist, binary: join(dist, binaryName(hostTarget())), cleanup };
}
