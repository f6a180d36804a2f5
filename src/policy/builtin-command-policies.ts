import type { CommandClass } from "./command-class.ts";

/** MCP tool annotations; they describe the tool's worst case, since a tool has one set of hints. */
export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/** The reviewed policy of one command: its class without class-changing arguments, and hints. */
export interface CommandPolicy {
  /**
   * The class of a call that uses none of the arguments that change it (no `dry_run`, no
   * `config` write action, no `export --file`, no `doctor --fix`); `classifyCall` refines it.
   */
  readonly baseClass: CommandClass;
  readonly annotations: ToolAnnotations;
  /** Why the command has this class, for reviewers and the catalog listing. */
  readonly reason: string;
}

function hints(
  readOnly: boolean,
  destructive: boolean,
  idempotent: boolean,
  openWorld: boolean,
): ToolAnnotations {
  return {
    readOnlyHint: readOnly,
    destructiveHint: destructive,
    idempotentHint: idempotent,
    openWorldHint: openWorld,
  };
}

// Hint arguments: readOnly, destructive, idempotent, openWorld. MCP reads destructiveHint as
// "may do more than add": replacing package versions or overwriting a value counts.
const READ_LOCAL = hints(true, false, true, false);
const READ_NETWORK = hints(true, false, true, true);

/**
 * Every terminal command of conda 26.7 (core and conda's own bundled plugins `check`, `doctor`,
 * `plugins`), keyed by its canonical path joined with spaces. A command missing here is treated
 * as unknown, i.e. `exec`; the tests walk the recorded 26.7 tree so a new command shows up.
 */
export const BUILTIN_COMMAND_POLICIES: ReadonlyMap<string, CommandPolicy> = new Map<
  string,
  CommandPolicy
>([
  [
    "activate",
    {
      baseClass: "read",
      annotations: READ_LOCAL,
      reason: "mock command: only prints that activation needs the shell function",
    },
  ],
  [
    "deactivate",
    {
      baseClass: "read",
      annotations: READ_LOCAL,
      reason: "mock command: only prints that deactivation needs the shell function",
    },
  ],
  [
    "check",
    {
      baseClass: "read",
      annotations: hints(false, true, true, true),
      reason: "health report (alias of doctor); --fix repairs the environment (write)",
    },
  ],
  [
    "doctor",
    {
      baseClass: "read",
      annotations: hints(false, true, true, true),
      reason:
        "health report; --fix repairs the environment, possibly reinstalling packages (write)",
    },
  ],
  [
    "clean",
    {
      baseClass: "destructive",
      annotations: hints(false, true, true, false),
      reason: "deletes package caches, tarballs and temp files; --force-pkgs-dirs can break envs",
    },
  ],
  [
    "commands",
    {
      baseClass: "read",
      annotations: READ_LOCAL,
      reason: "lists subcommand names",
    },
  ],
  [
    "compare",
    {
      baseClass: "read",
      annotations: READ_LOCAL,
      reason: "compares an environment with a file",
    },
  ],
  [
    "config",
    {
      baseClass: "read",
      annotations: hints(false, true, true, false),
      reason:
        "--show/--get/--describe/--validate read; --set/--append/--remove... rewrite a .condarc (write)",
    },
  ],
  [
    "create",
    {
      baseClass: "write",
      annotations: hints(false, false, false, true),
      reason:
        "adds a new environment from channels; overwriting an existing one is refused by guardCall",
    },
  ],
  [
    "env create",
    {
      baseClass: "write",
      annotations: hints(false, false, false, true),
      reason:
        "adds a new environment from a file; overwriting an existing path is refused by guardCall",
    },
  ],
  [
    "env config vars list",
    {
      baseClass: "read",
      annotations: READ_LOCAL,
      reason: "lists an environment's variables",
    },
  ],
  [
    "env config vars set",
    {
      baseClass: "write",
      annotations: hints(false, true, true, false),
      reason: "writes an environment's state file; replaces a variable's earlier value",
    },
  ],
  [
    "env config vars unset",
    {
      baseClass: "write",
      annotations: hints(false, true, true, false),
      reason: "removes variables from an environment's state file",
    },
  ],
  [
    "env export",
    {
      baseClass: "read",
      annotations: hints(false, true, true, false),
      reason: "prints the environment; with --file it writes (and silently overwrites) a file",
    },
  ],
  [
    "export",
    {
      baseClass: "read",
      annotations: hints(false, true, true, false),
      reason: "prints the environment; with --file it writes (and silently overwrites) a file",
    },
  ],
  [
    "env list",
    {
      baseClass: "read",
      annotations: READ_LOCAL,
      reason: "lists environments",
    },
  ],
  [
    "env remove",
    {
      baseClass: "destructive",
      annotations: hints(false, true, true, false),
      reason: "deletes a whole environment directory",
    },
  ],
  [
    "env update",
    {
      baseClass: "write",
      annotations: hints(false, true, false, true),
      reason: "changes an environment from a file; --prune removes packages",
    },
  ],
  [
    "info",
    {
      baseClass: "read",
      annotations: READ_LOCAL,
      reason: "reports the installation from local state",
    },
  ],
  [
    "init",
    {
      baseClass: "destructive",
      annotations: hints(false, true, true, false),
      reason:
        "edits shell startup files outside conda (every user's with --system, the registry on " +
        "Windows) and --reverse removes blocks from them: effects beyond conda's own directories",
    },
  ],
  [
    "install",
    {
      baseClass: "write",
      annotations: hints(false, true, true, true),
      reason: "changes an environment; the solver may replace or remove other packages",
    },
  ],
  [
    "list",
    {
      baseClass: "read",
      annotations: READ_LOCAL,
      reason: "lists installed packages",
    },
  ],
  [
    "notices",
    {
      baseClass: "read",
      annotations: READ_NETWORK,
      reason: "fetches channel notices (only conda's own cache is written)",
    },
  ],
  [
    "package",
    {
      baseClass: "write",
      annotations: hints(false, true, false, false),
      reason: "builds a package file; --reset deletes untracked files (destructive)",
    },
  ],
  [
    "plugins list",
    {
      baseClass: "read",
      annotations: READ_LOCAL,
      reason: "lists installed plugins",
    },
  ],
  [
    "remove",
    {
      baseClass: "destructive",
      annotations: hints(false, true, true, true),
      reason: "removes packages; --all deletes the whole environment",
    },
  ],
  [
    "rename",
    {
      baseClass: "destructive",
      annotations: hints(false, true, false, true),
      reason:
        "clones the environment and deletes the original (rm -rf); with --yes it replaces an " +
        "existing destination, and anything pointing at the old path breaks",
    },
  ],
  [
    "run",
    {
      baseClass: "exec",
      annotations: hints(false, true, false, true),
      reason: "runs an arbitrary program",
    },
  ],
  [
    "search",
    {
      baseClass: "read",
      annotations: READ_NETWORK,
      reason: "queries channel repodata over the network",
    },
  ],
  [
    "update",
    {
      baseClass: "write",
      annotations: hints(false, true, false, true),
      reason: "changes an environment; versions move with the channels, so repeats may differ",
    },
  ],
]);

/**
 * Commands not in the table, and every command an external plugin provides: plugin code runs
 * inside conda's process and can do anything, so only `--allow-exec` enables them.
 */
export const UNKNOWN_COMMAND_POLICY: CommandPolicy = {
  baseClass: "exec",
  annotations: hints(false, true, false, true),
  reason: "not a reviewed conda command: plugin code can do anything",
};
