import { rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { binaryName, compileBinary, hostTarget } from "../../scripts/build.ts";

let building: Promise<{ dir: string; path: string }> | null = null;

/**
 * The release binary for this machine, compiled once per test run (bun test shares modules
 * across files) into a temporary folder that is removed when the run exits. `dir` holds it
 * under its release name (`conda-mcp-linux-x64`), as scripts/build-conda-package.ts expects,
 * so a CONDA_MCP_TEST_BINARY is used instead only when it has that name.
 */
export function hostBinary(): Promise<{ dir: string; path: string }> {
  building ??= (async () => {
    const name = binaryName(hostTarget());
    const given = process.env.CONDA_MCP_TEST_BINARY;
    if (given && basename(given) === name) return { dir: dirname(given), path: given };
    const dir = await mkdtemp(join(tmpdir(), "conda-mcp-host-binary-"));
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, name);
    await compileBinary(null, true, path);
    return { dir, path };
  })();
  return building;
}
