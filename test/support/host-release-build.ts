import { rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
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
}

const BUILD_SCRIPT = join(import.meta.dir, "..", "..", "scripts", "build.ts");

let building: Promise<HostReleaseBuild> | null = null;

/**
 * The host binary built once per test process by the release script itself (`--no-bytecode`,
 * the quicker build, which passes the same suites); the folder is removed when the process exits.
 */
export function hostReleaseBuild(): Promise<HostReleaseBuild> {
  building ??= (async () => {
    const dist = await mkdtemp(join(tmpdir(), "conda-mcp-release-build-"));
    process.once("exit", () => rmSync(dist, { recursive: true, force: true }));
    const build = await runProgram(
      [process.execPath, BUILD_SCRIPT, "--target", "host", "--no-bytecode", "--outdir", dist],
      { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dist }, timeoutMs: 240_000 },
    );
    if (build.exitCode !== 0) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
    return { dist, binary: join(dist, binaryName(hostTarget())) };
  })();
  return building;
}
