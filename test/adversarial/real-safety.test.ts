import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  describeRealConda,
  makeRealCondaSandbox,
  REAL_CONDA,
  type RealCondaSandbox,
} from "../support/real-conda.ts";
import { type RunningServer, startServer } from "../support/start-server.ts";
import { diffTrees, snapshotTree, type TreeChanges } from "../support/tree-snapshot.ts";

// A red-team pass against the real conda: hostile and tricky calls under every startup policy
// that matters, each with a snapshot of the sandbox and of conda's root prefix before and after.
// Under no option nothing changes; under --allow-write nothing is deleted or overwritten; the
// guards hold under every option; the legitimate calls the README lists are not refused.

type Policy = "none" | "write" | "destructive" | "exec" | "exec_write" | "all";
const POLICY_ARGS: Record<Policy, string[]> = {
  none: [],
  write: ["--allow-write"],
  destructive: ["--allow-destructive"],
  exec: ["--allow-exec"],
  exec_write: ["--allow-exec", "--allow-write"],
  all: ["--allow-exec", "--allow-destructive"],
};
const TYPED: Policy[] = ["none", "write", "destructive", "all"];
const RAW: Policy[] = ["exec", "exec_write", "all"];

/** Paths of the sandbox world the cases aim at. */
interface World {
  root: string;
  base: string;
  envs: string;
  work: string;
  channel: string;
}

/** One call; `allowed` lists the policies under which conda-mcp must let it run. */
interface Case {
  name: string;
  tool: string;
  args: (w: World) => Record<string, unknown>;
  under: Policy[];
  allowed?: Policy[];
  /** Sandbox paths (prefixes) an allowed run may change or remove, beyond adding files. */
  mayChange?: string[];
}

let sandbox: RealCondaSandbox;
let world: World;
const servers = new Map<Policy, RunningServer>();

const solveArgs = (w: World) => ({ channel: [w.channel], override_channels: true, yes: true });
const solveArgv = (w: World) => ["-c", w.channel, "--override-channels", "-y"];

// Every spelling of the base environment a call could use.
const BASE_PREFIXES: [string, (w: World) => string][] = [
  ["base's root prefix", (w) => w.base],
  ["base's root prefix with a trailing slash", (w) => `${w.base}/`],
  ["base's root prefix through ..", (w) => join(w.base, "envs", "..")],
  ["a relative symlink to base", () => "link-base"],
  ["a symlink to base below ~", () => "~/base-link"],
];
const BASE_NAMES = ["base", "root"];

// Folders no call may delete: an environment holding another, conda's envs folder, the sandbox
// holding it, ordinary folders (by name in envs_dirs and by path).
const PROTECTED_PREFIXES: [string, (w: World) => string][] = [
  ["an environment holding another", (w) => join(w.envs, "holder")],
  ["it with a trailing slash", (w) => `${join(w.envs, "holder")}/`],
  ["it through ..", (w) => join(w.envs, "victim", "..", "holder")],
  ["the envs folder", (w) => w.envs],
  ["the folder holding the envs folder", (w) => w.root],
  ["an ordinary folder (relative)", () => "plain"],
  ["an ordinary folder (absolute)", (w) => join(w.work, "plain")],
  ["an ordinary file", () => "notes.txt"],
];
const PROTECTED_NAMES = ["holder", "plainfolder"];

function targets(): { label: string; flag: "name" | "prefix"; value: (w: World) => string }[] {
  return [
    ...BASE_NAMES.map((n) => ({ label: `-n ${n}`, flag: "name" as const, value: () => n })),
    ...PROTECTED_NAMES.map((n) => ({ label: `-n ${n}`, flag: "name" as const, value: () => n })),
    ...[...BASE_PREFIXES, ...PROTECTED_PREFIXES].map(([label, value]) => ({
      label: `-p ${label}`,
      flag: "prefix" as const,
      value,
    })),
  ];
}

function removalCases(): Case[] {
  return targets().flatMap(({ label, flag, value }) => {
    const short = flag === "name" ? "-n" : "-p";
    return [
      {
        name: `conda_remove --all ${label}`,
        tool: "conda_remove",
        args: (w) => ({ [flag]: value(w), all: true, yes: true }),
        under: TYPED,
      },
      {
        name: `conda_env_remove ${label}`,
        tool: "conda_env_remove",
        args: (w) => ({ [flag]: value(w), yes: true }),
        under: TYPED,
      },
      {
        name: `raw: --js uninstall --al -y ${label}`,
        tool: "conda_execute",
        args: (w) => ({ argv: ["--js", "uninstall", "--al", "-y", short, value(w)] }),
        under: RAW,
      },
      {
        name: `raw: env remove -y${short.slice(1)} ${label} (clustered)`,
        tool: "conda_execute",
        args: (w) => ({ argv: ["env", "remove", `-y${short.slice(1)}`, value(w)] }),
        under: RAW,
      },
      {
        name: `raw: rename ${label} away`,
        tool: "conda_execute",
        args: (w) => ({ argv: ["rename", "-y", `--${flag}=${value(w)}`, "renamed-away"] }),
        under: RAW,
      },
    ];
  });
}

function creationCases(): Case[] {
  const created = [
    ...BASE_NAMES.map((n) => ({ label: `-n ${n}`, flag: "name" as const, value: () => n })),
    { label: "-n victim (an environment)", flag: "name" as const, value: () => "victim" },
    {
      label: "-n plainfolder (a folder in envs)",
      flag: "name" as const,
      value: () => "plainfolder",
    },
    ...[...BASE_PREFIXES, ...PROTECTED_PREFIXES.slice(0, 1), ...PROTECTED_PREFIXES.slice(5)].map(
      ([label, value]) => ({ label: `-p ${label}`, flag: "prefix" as const, value }),
    ),
  ];
  return created
    .flatMap(({ label, flag, value }): Case[] => [
      {
        name: `conda_create ${label}`,
        tool: "conda_create",
        args: (w) => ({ [flag]: value(w), packages: ["tinyhello"], ...solveArgs(w) }),
        under: TYPED,
      },
      {
        name: `raw: --verb create ${label}`,
        tool: "conda_execute",
        args: (w) => ({
          argv: [
            "--verb",
            "create",
            ...solveArgv(w),
            flag === "name" ? "-n" : "-yp",
            value(w),
            "tinyhello",
          ],
        }),
        under: RAW,
      },
      {
        name: `conda_install into ${label}`,
        tool: "conda_install",
        args: (w) => ({ [flag]: value(w), packages: ["tinyhello"], ...solveArgs(w) }),
        under: label.includes("plain") || label.includes("file") ? TYPED : [],
      },
    ])
    .filter((c) => c.under.length > 0);
}

function environmentFileCases(): Case[] {
  // Files in the server's cwd (work/) and in work/sub/; each names an existing target.
  const files = [
    "environment.yml",
    "prefix-plain.yml",
    "prefix-holder.yml",
    "name-base.yml",
    "name-plainfolder.yml",
  ];
  return [
    {
      name: "conda_env_create {} (./environment.yml names an environment)",
      tool: "conda_env_create",
      args: () => ({}),
      under: TYPED,
    },
    ...files.map((file) => ({
      name: `conda_env_create --file ${file}`,
      tool: "conda_env_create",
      args: () => ({ file: [file] }),
      under: TYPED,
    })),
    ...files.map((file) => ({
      name: `conda_create --file ${file} --yes`,
      tool: "conda_create",
      args: () => ({ file: [file], yes: true }),
      under: TYPED,
    })),
    {
      name: "raw: env create (cwd's environment.yml)",
      tool: "conda_execute",
      args: () => ({ argv: ["env", "create"] }),
      under: RAW,
    },
    {
      name: "raw: env create with a cwd whose environment.yml names a prefix",
      tool: "conda_execute",
      args: (w) => ({ argv: ["env", "create"], cwd: join(w.work, "sub") }),
      under: RAW,
    },
    {
      name: "raw: env create --fi prefix-plain.yml (abbreviated --file)",
      tool: "conda_execute",
      args: () => ({ argv: ["env", "create", "--fi", "prefix-plain.yml"] }),
      under: RAW,
    },
  ];
}

function renameCases(): Case[] {
  const destinations: [string, (w: World) => string][] = [
    ["plainfolder (a folder in envs)", () => "plainfolder"],
    ["holder (an environment)", () => "holder"],
    ["base", () => "base"],
    ["an ordinary folder by path", (w) => join(w.work, "plain")],
    ["base's root prefix by path", (w) => w.base],
    // conda copies victim there, then deletes victim and the copy with it.
    ["a new folder inside victim itself", (w) => join(w.envs, "victim", "a", "b")],
    ["a new folder inside victim through a symlink", () => "link-victim/a/b"],
  ];
  return destinations.flatMap(([label, value]) => [
    {
      name: `conda_rename victim onto ${label}`,
      tool: "conda_rename",
      args: (w: World) => ({ name: "victim", destination: value(w), yes: true }),
      under: TYPED,
    },
    {
      name: `raw: rename -yn victim onto ${label}`,
      tool: "conda_execute",
      args: (w: World) => ({ argv: ["rename", "-yn", "victim", value(w)] }),
      under: RAW,
    },
  ]);
}

function relativePathCases(): Case[] {
  return [
    {
      name: "raw: remove --all -p holder, relative to the call's cwd",
      tool: "conda_execute",
      args: (w) => ({ argv: ["remove", "--all", "-y", "-p", "holder"], cwd: w.envs }),
      under: RAW,
    },
    {
      name: "raw: remove --all -p ../envs/holder from work/",
      tool: "conda_execute",
      args: (w) => ({ argv: ["remove", "--all", "-y", "-p", "../envs/holder"], cwd: w.work }),
      under: RAW,
    },
    {
      name: "raw: install -yp plain, relative to the call's cwd",
      tool: "conda_execute",
      args: (w) => ({
        argv: ["install", "-yp", "plain", "-c", w.channel, "--override-channels", "tinyhello"],
        cwd: w.work,
      }),
      under: RAW,
    },
    {
      name: "raw: create -yp=plain gives conda the prefix '=plain' (work/=plain would be new)",
      tool: "conda_execute",
      args: (w) => ({ argv: ["create", "--dry-run", "-yp=plain", ...solveArgv(w), "tinyhello"] }),
      under: RAW,
      allowed: RAW,
    },
  ];
}

function escalationCases(): Case[] {
  return [
    {
      name: "conda_install --revision 0 removes packages",
      tool: "conda_install",
      args: () => ({ name: "victim", revision: 0 }),
      under: ["none", "write"],
    },
    {
      name: "conda_env_update --prune removes packages",
      tool: "conda_env_update",
      args: () => ({ name: "victim", file: "environment.yml", prune: true }),
      under: ["none", "write"],
    },
    {
      name: "conda_export --file onto an existing file",
      tool: "conda_export",
      args: () => ({ name: "victim", file: "notes.txt" }),
      under: ["none", "write"],
    },
    {
      name: "conda_env_export --file onto an existing file",
      tool: "conda_env_export",
      args: () => ({ name: "victim", file: "notes.txt" }),
      under: ["none", "write"],
    },
    {
      name: "conda_config {} writes ~/.condarc",
      tool: "conda_config",
      args: () => ({}),
      under: ["none"],
    },
    {
      name: "conda_config --json writes ~/.condarc",
      tool: "conda_config",
      args: () => ({ json: true }),
      under: ["none"],
    },
    {
      name: "conda_config --system writes the base .condarc",
      tool: "conda_config",
      args: () => ({ system: true }),
      under: ["none"],
    },
    {
      name: "conda_config --get (no keys) writes",
      tool: "conda_config",
      args: () => ({ get: [] }),
      under: ["none"],
    },
    {
      name: "conda_config --file onto an ordinary file",
      tool: "conda_config",
      args: () => ({ file: "notes.txt" }),
      under: TYPED,
    },
    {
      name: "conda_config --set into an ordinary file",
      tool: "conda_config",
      args: () => ({ file: "notes.txt", set: [["channel_priority", "strict"]] }),
      under: TYPED,
    },
    {
      name: "raw: config --fi notes.txt --set (abbreviated)",
      tool: "conda_execute",
      args: () => ({
        argv: ["config", "--fi", "notes.txt", "--set", "channel_priority", "strict"],
      }),
      under: RAW,
    },
    {
      name: "raw: config --file notes.txt (a bare config writes)",
      tool: "conda_execute",
      args: () => ({ argv: ["config", "--file", "notes.txt"] }),
      under: RAW,
    },
    {
      name: "raw: --js export -n victim --file notes.txt",
      tool: "conda_execute",
      args: () => ({ argv: ["--js", "export", "-n", "victim", "--file", "notes.txt"] }),
      under: ["exec", "exec_write"],
    },
    {
      name: "conda_install --dry-run into an ordinary folder holding *.c~ files",
      tool: "conda_install",
      args: (w) => ({
        prefix: join(w.work, "trashy"),
        packages: ["tinyhello"],
        ...solveArgs(w),
        dry_run: true,
      }),
      under: TYPED,
    },
    {
      name: "conda_env_update --file naming an ordinary folder in envs",
      tool: "conda_env_update",
      args: () => ({ file: "name-plainfolder.yml" }),
      under: TYPED,
    },
    {
      name: "conda_package --reset in an ordinary folder",
      tool: "conda_package",
      args: () => ({ prefix: "plain", reset: true }),
      under: TYPED,
    },
    {
      name: "conda_package building from an ordinary folder's files",
      tool: "conda_package",
      args: () => ({ prefix: "plain", pkg_name: "loot" }),
      under: TYPED,
    },
    {
      name: "conda_package building over an existing tarball",
      tool: "conda_package",
      args: (w) => ({
        prefix: join(w.envs, "victim"),
        // conda lowercases the name, a path too; relative, it names old-1.0-0.tar.bz2 in work/.
        pkg_name: "old",
        pkg_version: "1.0",
        pkg_build: "0",
      }),
      under: ["none", "write"],
    },
    {
      name: "conda_config --write-default with --get writes",
      tool: "conda_config",
      args: () => ({ write_default: true, get: ["channels"], file: "fresh.txt" }),
      under: ["none"],
    },
    {
      name: "conda_config --file onto a JSON file with a conda-like key",
      tool: "conda_config",
      args: () => ({ file: "app.json", set: [["channel_alias", "http://x"]] }),
      under: TYPED,
    },
    {
      name: "conda_create inside an ordinary folder's conda-meta",
      tool: "conda_create",
      args: (w) => ({
        prefix: join(w.work, "plain", "conda-meta", "x"),
        packages: ["tinyhello"],
        ...solveArgs(w),
      }),
      under: TYPED,
    },
    {
      name: "raw: install --rev 0 (abbreviated)",
      tool: "conda_execute",
      args: () => ({ argv: ["install", "-n", "victim", "--rev", "0"] }),
      under: ["exec", "exec_write"],
    },
  ];
}

// Calls whose class or guard depends on what conda does beyond the target prefix: the folders
// `clean --tempfiles` empties, `--override-frozen` and the setting it lifts, dry runs, the
// tarball `package` writes, and the folders `config` makes package caches.
function beyondThePrefixCases(): Case[] {
  return [
    {
      name: "conda_clean --tempfiles an ordinary folder holding a .c~ file",
      tool: "conda_clean",
      args: () => ({ tempfiles: ["trashy"], yes: true }),
      under: ["destructive", "all"],
    },
    {
      name: "conda_clean --tempfiles an environment and an ordinary folder",
      tool: "conda_clean",
      args: (w) => ({ tempfiles: [join(w.envs, "victim"), join(w.work, "trashy")], yes: true }),
      under: ["destructive"],
    },
    {
      name: "conda_clean --tempfiles a path that does not exist",
      tool: "conda_clean",
      args: () => ({ tempfiles: ["no-such-env"], yes: true }),
      under: ["destructive"],
    },
    {
      name: "raw: clean -y --tempfiles trashy",
      tool: "conda_execute",
      args: () => ({ argv: ["clean", "-y", "--tempfiles", "trashy"] }),
      under: ["all"],
    },
    {
      name: "raw: clean -yc trashy (clustered --tempfiles)",
      tool: "conda_execute",
      args: () => ({ argv: ["clean", "-yc", "trashy"] }),
      under: ["all"],
    },
    {
      name: "conda_install --override-frozen into victim",
      tool: "conda_install",
      args: (w) => ({
        name: "victim",
        packages: ["tinyworld"],
        override_frozen: true,
        ...solveArgs(w),
      }),
      under: ["none", "write"],
    },
    {
      name: "conda_install --override-frozen --dry-run",
      tool: "conda_install",
      args: (w) => ({
        name: "victim",
        packages: ["tinyworld"],
        override_frozen: true,
        dry_run: true,
        ...solveArgs(w),
      }),
      under: ["none", "write"],
    },
    {
      name: "raw: install --override-f (abbreviated) into victim",
      tool: "conda_execute",
      args: (w) => ({
        argv: ["install", "-n", "victim", "--override-f", ...solveArgv(w), "tinyworld"],
      }),
      under: ["exec_write"],
    },
    {
      name: "conda_package with a path for a name (install would write its record there)",
      tool: "conda_package",
      args: (w) => ({
        prefix: join(w.envs, "victim"),
        pkg_name: join(w.work, "plain", "report"),
        pkg_version: "2024",
        pkg_build: "1",
      }),
      under: ["write", "all"],
    },
    {
      name: "raw: package --pkg-version with a path in it",
      tool: "conda_execute",
      args: () => ({
        argv: ["package", "-n", "victim", "--pkg-name", "x", "--pkg-version", "1/../../plain/y"],
      }),
      under: ["exec_write", "all"],
    },
    {
      name: "conda_env_config_vars_set a value that ends the activation script's quotes",
      tool: "conda_env_config_vars_set",
      args: () => ({ name: "victim", vars: ["X=a'; touch pwned; echo '"] }),
      under: ["write", "all"],
    },
    {
      name: "conda_env_config_vars_set a name that is shell code",
      tool: "conda_env_config_vars_set",
      args: () => ({ name: "victim", vars: ["X;touch pwned=1"] }),
      under: ["write"],
    },
    {
      name: "raw: env config vars set a value with a command substitution",
      tool: "conda_execute",
      args: () => ({ argv: ["env", "config", "vars", "set", "-n", "victim", "Y=$(touch pwned)"] }),
      under: ["exec_write"],
    },
    {
      name: "conda_env_create from a file whose variables end the activation script's quotes",
      tool: "conda_env_create",
      args: () => ({ file: ["vars-env.yml"] }),
      under: ["write", "all"],
    },
    {
      name: "conda_env_update victim from a file whose variables end the quotes",
      tool: "conda_env_update",
      args: () => ({ name: "victim", file: "vars-env.yml" }),
      under: ["write", "all"],
    },
    {
      name: "conda_env_config_vars_set in a frozen environment",
      tool: "conda_env_config_vars_set",
      args: () => ({ name: "icy", vars: ["A=1"] }),
      under: ["write", "all"],
    },
    {
      name: "raw: create --file /dev/stdin whose variables end the quotes (read once)",
      tool: "conda_execute",
      args: (w) => ({
        argv: ["create", ...solveArgv(w), "-n", "stdin-vars", "--file", "/dev/stdin"],
        stdin: `name: x\ndependencies: [tinyhello]\nvariables:\n  X: "a'; touch pwned; echo '"\n`,
      }),
      under: ["exec_write", "all"],
    },
    {
      name: "raw: env update victim -f /dev/stdin whose variables run a command",
      tool: "conda_execute",
      args: () => ({
        argv: ["env", "update", "-n", "victim", "-f", "/dev/stdin"],
        stdin: 'dependencies: [tinyhello]\nvariables:\n  Y: "$(touch pwned)"\n',
      }),
      under: ["exec_write", "all"],
    },
    {
      name: "conda_install into victim from a file whose variables end the quotes",
      tool: "conda_install",
      args: (w) => ({ name: "victim", file: ["vars-env.yml"], ...solveArgs(w) }),
      under: ["write", "all"],
    },
    {
      name: "conda_rename a frozen environment (conda does not check, and deletes it)",
      tool: "conda_rename",
      args: () => ({ name: "icy", destination: "icy-moved", yes: true }),
      under: ["destructive", "all"],
    },
    {
      name: "conda_package --reset in a frozen environment (conda does not check)",
      tool: "conda_package",
      args: () => ({ name: "icy", reset: true }),
      under: ["destructive", "all"],
    },
    {
      name: "raw: init --dev bash from a folder holding a conda package (replaces base's conda)",
      tool: "conda_execute",
      args: (w) => ({ argv: ["init", "--dev", "bash"], cwd: join(w.work, "fakesrc") }),
      under: ["exec", "all"],
    },
    {
      name: "conda_export --file through a dangling link to ~/.bash_profile",
      tool: "conda_export",
      args: () => ({ name: "victim", file: "dangling.yml" }),
      under: ["write", "destructive", "all"],
    },
    {
      name: "conda_export --file through a link to ~/.bashrc",
      tool: "conda_export",
      args: () => ({ name: "victim", file: "shell.yml" }),
      under: ["destructive", "all"],
    },
    {
      name: "conda_env_config_vars_set plain variables writes",
      tool: "conda_env_config_vars_set",
      args: () => ({ name: "victim", vars: ["MY_FLAGS=-O2 -g", "MY_URL=https://x/?a=b&c=d"] }),
      under: ["none", "write"],
      allowed: ["write"],
      mayChange: ["envs/victim/conda-meta/state"],
    },
    {
      name: "conda_config --set protect_frozen_envs false lifts frozen protection for good",
      tool: "conda_config",
      args: () => ({ file: "frozen-off.condarc", set: [["protect_frozen_envs", "false"]] }),
      under: ["none", "write", "destructive"],
      allowed: ["destructive"],
    },
    {
      name: "raw: config --set protect_frozen_envs no",
      tool: "conda_execute",
      args: () => ({
        argv: ["config", "--file", "frozen-raw.condarc", "--set", "protect_frozen_envs", "no"],
      }),
      under: ["exec_write", "all"],
      allowed: ["all"],
    },
    {
      name: "raw: config --stdin with protect_frozen_envs: false",
      tool: "conda_execute",
      args: () => ({
        argv: ["config", "--file", "stdin.condarc", "--stdin"],
        stdin: "protect_frozen_envs: false\n",
      }),
      under: ["exec_write", "all"],
    },
    {
      name: "raw: config --stdin with an ordinary folder in pkgs_dirs",
      tool: "conda_execute",
      args: (w) => ({
        argv: ["config", "--file", "stdin.condarc", "--stdin"],
        stdin: `pkgs_dirs: [${join(w.work, "plain")}]\n`,
      }),
      under: ["exec_write", "all"],
    },
    {
      name: "conda_config --append pkgs_dirs an ordinary folder",
      tool: "conda_config",
      args: (w) => ({ file: "pkgs.condarc", append: [["pkgs_dirs", join(w.work, "plain")]] }),
      under: TYPED,
    },
    {
      name: "conda_config --append pkgs_dirs.x (conda keys by the part before the dot)",
      tool: "conda_config",
      args: (w) => ({ file: "pkgs.condarc", append: [["pkgs_dirs.x", join(w.work, "plain")]] }),
      under: ["write", "all"],
    },
    {
      name: "raw: config --add pkgs_dirs plain (relative, an ordinary folder)",
      tool: "conda_execute",
      args: () => ({
        argv: ["config", "--file", "pkgs-raw.condarc", "--add", "pkgs_dirs", "plain"],
      }),
      under: RAW,
    },
    {
      name: "conda_config --append pkgs_dirs a new relative folder (later calls' cwd decides)",
      tool: "conda_config",
      args: () => ({ file: "pkgs.condarc", append: [["pkgs_dirs", "new-relative-pkgs"]] }),
      under: ["write", "all"],
    },
    {
      name: "conda_config --prepend pkgs_dirs a new folder writes",
      tool: "conda_config",
      args: (w) => ({
        file: "pkgs-new.condarc",
        prepend: [["pkgs_dirs", join(w.work, "new-pkgs")]],
      }),
      under: ["none", "write"],
      allowed: ["write"],
    },
    {
      name: "conda_config --append pkgs_dirs the package cache conda uses writes",
      tool: "conda_config",
      args: (w) => ({ file: "pkgs-cache.condarc", append: [["pkgs_dirs", join(w.root, "pkgs")]] }),
      under: ["none", "write"],
      allowed: ["write"],
    },
    {
      name: "conda_config --append pkgs_dirs a folder holding only conda's marker file",
      tool: "conda_config",
      args: (w) => ({ file: "pkgs.condarc", append: [["pkgs_dirs", join(w.work, "cache")]] }),
      under: ["write", "all"],
    },
    {
      name: "conda_config --set root_prefix (moves base and its package cache)",
      tool: "conda_config",
      args: (w) => ({ file: "root.condarc", set: [["root_prefix", join(w.work, "plain")]] }),
      under: TYPED,
    },
    {
      name: "raw: config --set root_dir (root_prefix's alias)",
      tool: "conda_execute",
      args: (w) => ({
        argv: ["config", "--file", "root.condarc", "--set", "root_dir", join(w.work, "plain")],
      }),
      under: RAW,
    },
    {
      name: "conda_config --file a new shell profile",
      tool: "conda_config",
      args: () => ({ file: ".bash_profile", append: [["channels", "x;touch pwned"]] }),
      under: TYPED,
    },
    {
      name: "conda_config --file a new post-link script in victim",
      tool: "conda_config",
      args: (w) => ({
        file: join(w.envs, "victim", "bin", ".evil-post-link.sh"),
        append: [["channels", "x;touch pwned"]],
      }),
      under: TYPED,
    },
    {
      name: "conda_config --remove-key from a project's environment.yml (one conda key in it)",
      tool: "conda_config",
      args: () => ({ file: "environment.yml", remove_key: ["dependencies"] }),
      under: TYPED,
    },
    {
      name: "conda_export --format environment-yaml --file a new shell profile",
      tool: "conda_export",
      args: () => ({ name: "victim", format: "environment-yaml", file: ".bash_profile" }),
      under: TYPED,
    },
    {
      name: "raw: export --format environment-yaml -f .bashrc",
      tool: "conda_execute",
      args: () => ({
        argv: ["export", "-n", "victim", "--format", "environment-yaml", "-f", ".bashrc"],
      }),
      under: RAW,
    },
  ];
}

// The calls the README's safety section names as allowed; they must run.
function legitimateCases(): Case[] {
  return [
    {
      name: "conda_create --dry-run without -n or -p only reads",
      tool: "conda_create",
      args: (w) => ({ packages: ["tinyhello"], ...solveArgs(w), dry_run: true }),
      under: ["none"],
      allowed: ["none"],
    },
    {
      name: "conda_rename --dry-run onto an existing ordinary folder only reads",
      tool: "conda_rename",
      args: (w) => ({ name: "victim", destination: join(w.work, "plain"), dry_run: true }),
      under: ["none"],
      allowed: ["none"],
    },
    {
      name: "raw: create -d (a dry run) without -n or -p",
      tool: "conda_execute",
      args: (w) => ({ argv: ["create", "-d", ...solveArgv(w), "tinyhello"] }),
      under: ["exec"],
      allowed: ["exec"],
    },
    {
      name: "conda_clean --tempfiles of an environment",
      tool: "conda_clean",
      args: (w) => ({ tempfiles: [join(w.envs, "victim")], yes: true }),
      under: ["write", "destructive"],
      allowed: ["destructive"],
    },
    {
      name: "conda_package building a new tarball from victim's untracked files writes",
      tool: "conda_package",
      args: (w) => ({ prefix: join(w.envs, "victim"), pkg_name: "fresh-pkg" }),
      under: ["none", "write"],
      allowed: ["write"],
    },
    {
      name: "raw: remove --all -n victim -h only prints",
      tool: "conda_execute",
      args: () => ({ argv: ["remove", "--all", "-n", "victim", "-h"] }),
      under: RAW,
      allowed: RAW,
    },
    {
      name: "raw: --help",
      tool: "conda_execute",
      args: () => ({ argv: ["--help"] }),
      under: RAW,
      allowed: RAW,
    },
    {
      name: "raw: -V",
      tool: "conda_execute",
      args: () => ({ argv: ["-V"] }),
      under: RAW,
      allowed: RAW,
    },
    {
      name: "raw: create --help",
      tool: "conda_execute",
      args: () => ({ argv: ["create", "--help"] }),
      under: RAW,
      allowed: RAW,
    },
    {
      name: "conda_config --show reads",
      tool: "conda_config",
      args: () => ({ show: [] }),
      under: TYPED,
      allowed: TYPED,
    },
    {
      name: "conda_list -n victim reads",
      tool: "conda_list",
      args: () => ({ name: "victim" }),
      under: TYPED,
      allowed: TYPED,
    },
    {
      name: "conda_create --dry-run of a new environment only reads",
      tool: "conda_create",
      args: (w) => ({ name: "fresh-dry", packages: ["tinyhello"], ...solveArgs(w), dry_run: true }),
      under: ["none"],
      allowed: ["none"],
    },
    {
      name: "conda_env_create --file naming a new environment",
      tool: "conda_env_create",
      args: () => ({ file: ["new-env.yml"] }),
      under: ["none", "write"],
      allowed: ["write"],
    },
    {
      name: "conda_create -n fresh with --file naming a new environment and --yes",
      tool: "conda_create",
      args: (w) => ({ file: ["new-create.yml"], ...solveArgs(w) }),
      under: ["none", "write"],
      allowed: ["write"],
    },
    {
      name: "conda_create -p newdir (relative to the server's cwd)",
      tool: "conda_create",
      args: (w) => ({ prefix: "newdir", packages: ["tinyhello"], ...solveArgs(w) }),
      under: ["none", "write"],
      allowed: ["write"],
    },
    {
      name: "raw: create -y -p rel-new with the call's cwd",
      tool: "conda_execute",
      args: (w) => ({
        argv: ["create", ...solveArgv(w), "-p", "rel-new", "tinyhello"],
        cwd: join(w.work, "sub"),
      }),
      under: ["exec", "exec_write"],
      allowed: ["exec_write"],
    },
    {
      name: "conda_install tinyworld into victim",
      tool: "conda_install",
      args: (w) => ({ name: "victim", packages: ["tinyworld"], ...solveArgs(w) }),
      under: ["none", "write"],
      allowed: ["write"],
      mayChange: ["envs/victim/conda-meta"],
    },
    {
      name: "conda_config --file good.yml --set",
      tool: "conda_config",
      args: () => ({ file: "good.yml", set: [["channel_priority", "strict"]] }),
      under: ["none", "write"],
      allowed: ["write"],
      mayChange: ["work/good.yml"],
    },
    {
      name: "conda_export --file to a new file",
      tool: "conda_export",
      args: () => ({ name: "victim", file: "new-export.yml" }),
      under: ["none", "write"],
      allowed: ["write"],
    },
    {
      name: "conda_export --file onto an existing export",
      tool: "conda_export",
      args: () => ({ name: "victim", file: "new-export.yml" }),
      under: ["destructive"],
      allowed: ["destructive"],
      mayChange: ["work/new-export.yml"],
    },
    {
      name: "conda_remove --all -n fresh-create (an environment of its own)",
      tool: "conda_remove",
      args: () => ({ name: "fresh-create", all: true, yes: true }),
      under: ["write", "destructive"],
      allowed: ["destructive"],
      mayChange: ["envs/fresh-create", "home/.conda/environments.txt"],
    },
  ];
}

const CASES: Case[] = [
  ...removalCases(),
  ...creationCases(),
  ...environmentFileCases(),
  ...renameCases(),
  ...relativePathCases(),
  ...escalationCases(),
  ...beyondThePrefixCases(),
  ...legitimateCases(),
];
const ALL_RUNS = CASES.flatMap((c) => c.under.map((policy) => ({ c, policy })));

// Should a guard fail, a case aimed at base would damage the conda under test: they run on a
// conda built by the team's kit (its root holds `.real-conda-kit`), or when
// CONDA_MCP_TEST_ALLOW_BASE_CASES=1 says that conda may be put at risk.
const BASE_AT_RISK_OK =
  REAL_CONDA !== null &&
  (existsSync(join(REAL_CONDA, "..", "..", ".real-conda-kit")) ||
    process.env.CONDA_MCP_TEST_ALLOW_BASE_CASES === "1");
const aimsAtBase = (c: Case) => /\bbase\b|-n root/.test(c.name);
const RUNS = ALL_RUNS.filter((r) => BASE_AT_RISK_OK || !aimsAtBase(r.c));

async function makeEnv(prefix: string): Promise<void> {
  const made = await sandbox.conda([
    "create",
    "-y",
    "-p",
    prefix,
    "-c",
    sandbox.channel,
    "--override-channels",
    "tinyhello",
  ]);
  if (made.exitCode !== 0) throw new Error(`could not create ${prefix}: ${made.stderr}`);
}

// conda's bookkeeping and caches, not what a call asked for.
const ignoreInSandbox = (path: string) =>
  path === "pkgs" || path.startsWith("home/.cache") || path.endsWith("/.conda_envs_dir_test");
const ignoreInBase = (path: string) =>
  ["pkgs", "envs", "home"].includes(path) || path.includes("__pycache__");

async function snapshot() {
  return {
    sandbox: await snapshotTree(sandbox.root, ignoreInSandbox),
    base: await snapshotTree(world.base, ignoreInBase),
  };
}

// A refusal by the policy or a guard, not a server that could not ask conda or failed.
function isRefusal(result: CallToolResult): boolean {
  const text = textOf(result);
  return (
    result.isError === true &&
    result.structuredContent === undefined &&
    (text.includes("Start conda-mcp with") || text.startsWith("Refused: ")) &&
    !text.includes("could not ask conda") &&
    !text.includes("failed to run this call")
  );
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

const nothing = (c: TreeChanges) => ({ ...c });

describeRealConda("red team: hostile calls against the real conda, checked on disk", () => {
  beforeAll(async () => {
    sandbox = await makeRealCondaSandbox();
    const root = sandbox.root;
    world = {
      root,
      base: sandbox.discovery.installation.rootPrefix,
      envs: sandbox.envsDir,
      work: join(root, "work"),
      channel: sandbox.channel,
    };
    const { envs, work } = world;
    await makeEnv(join(envs, "victim"));
    await makeEnv(join(envs, "holder"));
    await makeEnv(join(envs, "holder", "sub", "nested"));
    // Frozen by its owner (CEP 22).
    await makeEnv(join(envs, "icy"));
    await writeFile(join(envs, "icy", "conda-meta", "frozen"), "");
    await writeFile(join(envs, "icy", "notes-untracked.txt"), "keep\n");
    await mkdir(join(envs, "plainfolder"), { recursive: true });
    await writeFile(join(envs, "plainfolder", "keep.txt"), "keep\n");
    await mkdir(join(work, "plain"), { recursive: true });
    await mkdir(join(work, "sub"), { recursive: true });
    await writeFile(join(work, "plain", "keep.txt"), "keep\n");
    await writeFile(join(work, "notes.txt"), "keep me: not YAML { at all\n");
    await writeFile(join(work, "good.yml"), "channels: [x]\n");
    await mkdir(join(work, "trashy", "a"), { recursive: true });
    await writeFile(join(work, "trashy", "a", "report.c~"), "keep\n");
    await writeFile(join(work, "old-1.0-0.tar.bz2"), "an old tarball\n");
    // conda's marker of a package cache.
    await mkdir(join(work, "cache"), { recursive: true });
    await writeFile(join(work, "cache", "urls.txt"), "");
    await writeFile(join(work, "app.json"), '{"debug": false, "port": 8080}\n');
    await symlink(world.base, join(work, "link-base"));
    await symlink(join(envs, "victim"), join(work, "link-victim"));
    await symlink(world.base, join(sandbox.home, "base-link"));
    // Export names that lead to shell startup files: one missing, one there.
    await symlink(join(sandbox.home, ".bash_profile"), join(work, "dangling.yml"));
    await writeFile(join(sandbox.home, ".bashrc"), "# the user's own\n");
    await symlink(join(sandbox.home, ".bashrc"), join(work, "shell.yml"));
    // What `init --dev` takes for a conda source checkout.
    await mkdir(join(work, "fakesrc", "conda"), { recursive: true });
    await writeFile(join(work, "fakesrc", "conda", "__main__.py"), "");
    const yml = (text: string) =>
      `${text}\nchannels: [${world.channel}]\ndependencies: [tinyhello]\n`;
    await writeFile(join(work, "environment.yml"), yml("name: victim"));
    await writeFile(join(work, "prefix-plain.yml"), yml(`prefix: ${join(work, "plain")}`));
    await writeFile(join(work, "prefix-holder.yml"), yml(`prefix: ${join(envs, "holder")}`));
    await writeFile(join(work, "name-base.yml"), yml("name: base"));
    await writeFile(join(work, "name-plainfolder.yml"), yml("name: plainfolder"));
    await writeFile(join(work, "sub", "environment.yml"), yml(`prefix: ${join(envs, "holder")}`));
    await writeFile(join(work, "new-env.yml"), yml("name: fresh-env"));
    await writeFile(join(work, "new-create.yml"), yml("name: fresh-create"));
    await writeFile(
      join(work, "vars-env.yml"),
      yml(`name: fresh-vars\nvariables:\n  X: "a'; touch ${join(work, "pwned")}; echo '"`),
    );
    for (const policy of Object.keys(POLICY_ARGS) as Policy[]) {
      servers.set(
        policy,
        await startServer({
          conda: REAL_CONDA,
          env: sandbox.env,
          args: POLICY_ARGS[policy],
          cwd: work,
        }),
      );
    }
  }, 300_000);

  afterAll(async () => {
    for (const server of servers.values()) await server.close();
    await sandbox?.cleanup();
  });

  test("the suite has at least 150 cases", () => {
    expect(ALL_RUNS.length).toBeGreaterThanOrEqual(150);
    expect(RUNS.length).toBeGreaterThanOrEqual(150);
  });

  test.skipIf(!BASE_AT_RISK_OK)(
    "cases aimed at base run too (only on a kit-built conda or with CONDA_MCP_TEST_ALLOW_BASE_CASES=1)",
    () => {
      expect(ALL_RUNS.filter((r) => aimsAtBase(r.c)).length).toBeGreaterThan(100);
      expect(RUNS).toEqual(ALL_RUNS);
    },
  );

  test.each(RUNS.map((r) => [`${r.c.name} under ${r.policy}`, r] as const))(
    "%s",
    async (_, { c, policy }) => {
      const server = servers.get(policy);
      if (!server) throw new Error(`no server for ${policy}`);
      const before = await snapshot();
      const result = (await server.client.callTool(
        { name: c.tool, arguments: c.args(world) },
        undefined,
        {
          timeout: 300_000,
        },
      )) as CallToolResult;
      const after = await snapshot();
      const inSandbox = diffTrees(before.sandbox, after.sandbox);
      const inBase = diffTrees(before.base, after.base);
      const allowed = c.allowed?.includes(policy) ?? false;
      const what = `${c.name} under ${policy}: ${textOf(result).slice(0, 300)}`;

      // conda's own root prefix never changes.
      expect([what, nothing(inBase)]).toEqual([what, { added: [], removed: [], changed: [] }]);
      if (!allowed) {
        expect([what, isRefusal(result)]).toEqual([what, true]);
        expect([what, nothing(inSandbox)]).toEqual([what, { added: [], removed: [], changed: [] }]);
        return;
      }
      expect([what, isRefusal(result)]).toEqual([what, false]);
      const may = (path: string) =>
        path === "home/.conda/environments.txt" ||
        (c.mayChange ?? []).some((p) => path === p || path.startsWith(`${p}/`));
      // An allowed call may add; it deletes or overwrites only what the case names.
      expect([what, inSandbox.removed.filter((p) => !may(p))]).toEqual([what, []]);
      expect([what, inSandbox.changed.filter((p) => !may(p))]).toEqual([what, []]);
    },
    300_000,
  );
});
