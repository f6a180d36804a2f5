import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import { CondaMcpError } from "../errors.ts";
import { isDirectory } from "../is-directory.ts";

/** Looks a command up on a search path; returns its full path or null. */
export type Which = (
  command: string,
  options: { path: string; pathExt: string | undefined; platform: NodeJS.Platform },
) => string | null;

/** Options of {@link findConda}. */
export interface FindCondaOptions {
  /** The `--conda PATH` option: a conda executable, or a conda prefix folder. */
  explicitPath?: string | null;
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
  /** PATH lookup; defaults to {@link whichOnPath}. */
  which?: Which;
}

const NOT_FOUND_MESSAGE =
  "conda was not found. Give its path with --conda PATH, set CONDA_EXE (an activated conda " +
  "shell sets it), or put conda on PATH.";

/**
 * Find the conda executable: `--conda PATH`, else `CONDA_EXE`, else `conda` on PATH. On
 * Windows, `condabin\conda.bat` found on PATH is replaced by the `Scripts\conda.exe` it runs.
 */
export function findConda(options: FindCondaOptions): string {
  const { env, platform } = options;
  const paths = platform === "win32" ? path.win32 : path.posix;

  if (options.explicitPath) {
    const found = condaAt(paths.resolve(options.explicitPath), platform);
    if (!found) {
      throw new CondaMcpError(
        "The --conda path is not a conda executable or a conda prefix folder. Give the path " +
          "of the conda script or binary (e.g. <prefix>/bin/conda or <prefix>\\Scripts\\conda.exe).",
        "CONDA_NOT_FOUND",
      );
    }
    return found;
  }

  const condaExe = env.CONDA_EXE;
  if (condaExe && isExecutableFile(condaExe, platform)) return condaExe;

  const which = options.which ?? whichOnPath;
  const onPath = which("conda", {
    path: env.PATH ?? env.Path ?? "",
    pathExt: env.PATHEXT,
    platform,
  });
  if (onPath) return platform === "win32" ? windowsCondaLauncherFor(onPath) : onPath;

  throw new CondaMcpError(
    condaExe
      ? `${NOT_FOUND_MESSAGE} (CONDA_EXE is set but names no executable file.)`
      : NOT_FOUND_MESSAGE,
    "CONDA_NOT_FOUND",
  );
}

/**
 * The `Scripts\conda.exe` that `condabin\conda.bat` runs when CONDA_EXE is unset; other
 * paths, or a bat whose launcher is missing, are returned unchanged.
 */
export function windowsCondaLauncherFor(
  found: string,
  exists: (candidate: string) => boolean = (candidate) => isExecutableFile(candidate, "win32"),
): string {
  const { basename, dirname, join } = path.win32;
  if (basename(found).toLowerCase() !== "conda.bat") return found;
  if (basename(dirname(found)).toLowerCase() !== "condabin") return found;
  const launcher = join(dirname(dirname(found)), "Scripts", "conda.exe");
  return exists(launcher) ? launcher : found;
}

/** Default {@link Which}: PATH order, with PATHEXT extensions on Windows. */
export const whichOnPath: Which = (command, { path: searchPath, pathExt, platform }) => {
  const paths = platform === "win32" ? path.win32 : path.posix;
  const delimiter = platform === "win32" ? ";" : ":";
  const extensions =
    platform === "win32"
      ? (pathExt || ".COM;.EXE;.BAT;.CMD").split(";").filter((ext) => ext.length > 0)
      : [""];
  for (const dir of searchPath.split(delimiter)) {
    if (!dir) continue;
    for (const ext of extensions) {
      const candidate = paths.join(dir, command + ext.toLowerCase());
      if (isExecutableFile(candidate, platform)) return candidate;
    }
  }
  return null;
};

function condaAt(target: string, platform: NodeJS.Platform): string | null {
  if (isExecutableFile(target, platform)) return target;
  if (!isDirectory(target)) return null;
  const paths = platform === "win32" ? path.win32 : path.posix;
  const inside =
    platform === "win32"
      ? [
          ["Scripts", "conda.exe"],
          ["condabin", "conda.bat"],
        ]
      : [
          ["bin", "conda"],
          ["condabin", "conda"],
        ];
  for (const parts of inside) {
    const candidate = paths.join(target, ...parts);
    if (isExecutableFile(candidate, platform)) {
      return platform === "win32" ? windowsCondaLauncherFor(candidate) : candidate;
    }
  }
  return null;
}

function isExecutableFile(candidate: string, platform: NodeJS.Platform): boolean {
  try {
    if (!statSync(candidate).isFile()) return false;
    // Windows has no execute bit; the extension decides.
    if (platform !== "win32") accessSync(candidate, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
