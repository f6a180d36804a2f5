import path from "node:path";
import type { Config } from "../config/config-types.ts";
import { findConda } from "../discover/find-conda.ts";

/** How this process was started, which decides the command a client should run. */
export interface LaunchFacts {
  /** `process.execPath`: the compiled binary itself, or the bun that runs main.ts. */
  readonly execPath: string;
  /** main.ts's own path (`import.meta.path`), inside the binary's virtual folder once compiled. */
  readonly mainPath: string;
}

/** The program and arguments a client runs to start this server. */
export interface ServerCommand {
  readonly command: string;
  readonly args: readonly string[];
}

/** A compiled Bun binary runs its modules from `/$bunfs/root/` (`B:\~BUN\root\` on Windows). */
function isCompiled(mainPath: string): boolean {
  return /^(?:\/\$bunfs\/|[A-Za-z]:[\\/]~BUN[\\/])/.test(mainPath);
}

/**
 * The shortest command that starts this same server on this machine: `<conda> mcp [options]`
 * when the conda plugin started it (it sets CONDA_MCP_VIA_CONDA to its conda's absolute path
 * and appends `--conda` with it unless another was given, which then stays), `npx -y conda-mcp`
 * when the npm launcher did (CONDA_MCP_VIA_NPX names the package), else this binary (or bun
 * and main.ts, from a checkout); each with `--conda` set to the absolute path of the conda
 * found now, then the serving options given.
 */
export function chooseServerCommand(config: Config, launch: LaunchFacts): ServerCommand {
  const paths = config.platform === "win32" ? path.win32 : path.posix;
  const found = findConda({
    explicitPath: config.condaPath && paths.resolve(config.cwd, config.condaPath),
    env: config.env,
    platform: config.platform,
  });
  const target = paths.resolve(config.cwd, found);
  const conda = ["--conda", target, ...config.serveArgs];
  const viaConda = config.env.CONDA_MCP_VIA_CONDA;
  if (viaConda && paths.isAbsolute(viaConda)) {
    const other = target === viaConda ? [] : ["--conda", target];
    return { command: viaConda, args: ["mcp", ...other, ...config.serveArgs] };
  }
  const viaNpx = config.env.CONDA_MCP_VIA_NPX;
  if (viaNpx) return { command: "npx", args: ["-y", viaNpx, ...conda] };
  return isCompiled(launch.mainPath)
    ? { command: launch.execPath, args: conda }
    : { command: launch.execPath, args: [launch.mainPath, ...conda] };
}
