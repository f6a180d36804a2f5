import { accessSync, closeSync, constants, openSync, readSync, statSync } from "node:fs";
import path from "node:path";
import { CondaMcpError } from "../errors.ts";

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

/** True when the path exists and is a directory (symlinks followed). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** What the first lines of a script say about the interpreter that runs it. */
export type Shebang =
  /** `#!/opt/conda/bin/python [arg]`. */
  | { kind: "direct"; interpreter: string; argument: string | null }
  /** `#!/usr/bin/env [-S] [VAR=value] python`: the program is looked up on PATH. */
  | { kind: "env"; program: string }
  /** `#!/bin/sh` then `'''exec' "<python>" "$0" "$@" #'''` (long or spaced prefixes). */
  | { kind: "sh-trampoline"; interpreter: string }
  /** A shell script with no recognised trampoline (e.g. a hand-written wrapper). */
  | { kind: "shell"; interpreter: string };

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh"]);
const TRAMPOLINE = /^'''exec' (?:"([^"]+)"|'([^']+)'|(\S+)) "\$0" "\$@"/;

/** Parse the head of a script (its first few KiB as text); null when it has no `#!` line. */
export function parseShebang(head: string): Shebang | null {
  if (!head.startsWith("#!")) return null;
  const lines = head.split("\n").map((line) => line.replace(/\r$/, ""));
  const first = (lines[0] ?? "").slice(2).trim();
  if (!first) return null;
  const [interpreter = "", ...rest] = first.split(/\s+/);
  const name = interpreter.split("/").pop() ?? "";

  if (name === "env") {
    // env's own flags (-S, -i, -u NAME) and VAR=value assignments come before the program.
    const words = rest.length === 1 ? (rest[0] ?? "").split(/\s+/) : rest;
    for (let i = 0; i < words.length; i++) {
      const word = words[i] ?? "";
      if (word === "-u" || word === "--unset") {
        i++;
        continue;
      }
      if (word.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) continue;
      if (word) return { kind: "env", program: word };
    }
    return null;
  }

  if (SHELLS.has(name)) {
    for (const line of lines.slice(1, 6)) {
      const match = TRAMPOLINE.exec(line);
      if (match) {
        const python = match[1] ?? match[2] ?? match[3];
        if (python) return { kind: "sh-trampoline", interpreter: python };
      }
    }
    return { kind: "shell", interpreter };
  }

  return { kind: "direct", interpreter, argument: rest.length > 0 ? rest.join(" ") : null };
}

/** Executable file formats that mean "native program", not a script. */
export type BinaryFormat = "elf" | "mach-o" | "pe";

const MACH_O_MAGICS = new Set([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe]);

/** Recognise a native executable from its first bytes (ELF, Mach-O incl. fat, PE); else null. */
export function detectBinaryFormat(head: Uint8Array): BinaryFormat | null {
  if (
    head.length >= 4 &&
    head[0] === 0x7f &&
    head[1] === 0x45 &&
    head[2] === 0x4c &&
    head[3] === 0x46
  ) {
    return "elf";
  }
  if (head.length >= 2 && head[0] === 0x4d && head[1] === 0x5a) return "pe";
  if (head.length >= 4) {
    const magic =
      ((head[0] ?? 0) << 24) | ((head[1] ?? 0) << 16) | ((head[2] ?? 0) << 8) | (head[3] ?? 0);
    if (MACH_O_MAGICS.has(magic >>> 0)) return "mach-o";
  }
  return null;
}

/** The first `bytes` bytes of a file (fewer when it is shorter), or null when it cannot be read. */
export function readHead(file: string, bytes: number): Uint8Array | null {
  let fd: number | null = null;
  try {
    fd = openSync(file, "r");
    const buffer = new Uint8Array(bytes);
    const bytesRead = readSync(fd, buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
