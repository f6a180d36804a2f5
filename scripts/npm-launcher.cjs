#!/usr/bin/env node
// The `conda-mcp` command of the npm package: it runs the compiled binary that the platform's
// optional dependency (`@conda-mcp/<os>-<arch>[-musl]`) holds. scripts/build-npm-packages.ts
// ships this file as the launcher package's bin/conda-mcp.js; plain Node, no dependencies.
"use strict";

const { spawn } = require("node:child_process");
const { existsSync } = require("node:fs");
const { constants } = require("node:os");
const { dirname, join } = require("node:path");

/** The scope of the platform packages. */
const SCOPE = "@conda-mcp";

/** Signals passed on to the binary; Windows has no POSIX signals to pass on (see run). */
const FORWARDED_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];

/** The platform package's key for a platform: `linux-x64`, `linux-x64-musl`, `win32-x64`, ... */
function platformKey(platform, arch, musl) {
  return `${platform}-${arch}${platform === "linux" && musl ? "-musl" : ""}`;
}

/** Whether this Linux runs on musl libc: Node's report names the glibc it runs on, if any. */
function runsOnMusl() {
  if (process.platform !== "linux" || !process.report) return false;
  // Collecting the report's network section can be slow; nothing here needs it.
  process.report.excludeNetwork = true;
  const header = process.report.getReport().header;
  return typeof header.glibcVersionRuntime !== "string";
}

/**
 * The binary to run, or the message that says why there is none: `{ binary }` or `{ error }`.
 * `manifest` is the launcher's package.json; `resolve` finds a package's package.json.
 */
function locateBinary(key, manifest, resolve) {
  const name = `${SCOPE}/${key}`;
  const version = manifest.version;
  const shipped = Object.keys(manifest.optionalDependencies || {});
  if (!shipped.includes(name)) {
    const keys = shipped.map((n) => n.slice(SCOPE.length + 1)).join(", ");
    return {
      error: `conda-mcp ${version} has no binary for this platform (${key}); it is built for ${keys}.`,
    };
  }
  const install = `npm install ${name}@${version}`;
  let packageJsonPath;
  try {
    packageJsonPath = resolve(`${name}/package.json`);
  } catch {
    return {
      error: [
        `conda-mcp: the package ${name}, which holds the conda-mcp binary for ${key}, is not installed.`,
        "npm leaves an optional dependency out when told to (--omit=optional, --no-optional), when",
        "it cannot fetch it, or when it installs a lockfile made on another platform. Install it",
        "next to conda-mcp:",
        `  ${install}`,
        "or run `npx -y conda-mcp`, which installs both.",
      ].join("\n"),
    };
  }
  const found = require(packageJsonPath).version;
  if (found !== version) {
    return {
      error: `conda-mcp ${version} needs ${name} ${version}, but ${found} is installed. Install the matching one:\n  ${install}`,
    };
  }
  const binary = join(
    dirname(packageJsonPath),
    "bin",
    `conda-mcp${key.startsWith("win32-") ? ".exe" : ""}`,
  );
  if (!existsSync(binary)) {
    return {
      error: `conda-mcp: ${name} is installed but has no ${binary}. Reinstall it:\n  ${install}`,
    };
  }
  return { binary };
}

/**
 * Runs the binary with the launcher's stdio and arguments, passes on the signals it gets, and
 * ends the way the binary ended (same exit code, or killed by the same signal).
 */
function run(binary, args) {
  const posix = process.platform !== "win32";
  // On POSIX the binary gets its own session: a terminal's Ctrl-C (sent to the whole foreground
  // process group) then reaches only this launcher, which passes it on once. Were the binary in
  // our group too it would get every such signal twice, and the server treats a second SIGINT
  // as "stop now" (no clean shutdown). On Windows a console's Ctrl-C reaches both processes and
  // `kill` would terminate the binary outright, so nothing is passed on there.
  // A client that kills only the launcher leaves the binary to end when its stdin closes.
  // CONDA_MCP_VIA_NPX tells `conda-mcp setup` to write `npx -y conda-mcp`, not this cache path.
  const child = spawn(binary, args, {
    stdio: "inherit",
    detached: posix,
    env: { ...process.env, CONDA_MCP_VIA_NPX: "conda-mcp" },
  });
  const forward = (signal) => {
    if (posix && child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
  child.on("error", (error) => {
    process.stderr.write(`conda-mcp: could not start ${binary}: ${error.message}\n`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => {
    for (const name of FORWARDED_SIGNALS) process.off(name, forward);
    if (signal) {
      // With its handler gone the signal gets its default action: the launcher dies of it too.
      // A signal Node ignores by default (SIGPIPE) falls through to the shell's 128 + n.
      process.kill(process.pid, signal);
      process.exit(128 + (constants.signals[signal] || 0));
    }
    process.exit(code === null ? 1 : code);
  });
}

function main() {
  const key = platformKey(process.platform, process.arch, runsOnMusl());
  const found = locateBinary(key, require("../package.json"), require.resolve);
  if (found.error) {
    process.stderr.write(`${found.error}\n`);
    process.exit(1);
  }
  run(found.binary, process.argv.slice(2));
}

if (require.main === module) main();

module.exports = { platformKey, locateBinary, SCOPE };
