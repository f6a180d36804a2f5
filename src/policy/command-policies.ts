import type { CommandClass } from "./check-policy.ts";
import { type GuardName, settingsSetOrRemoved } from "./guard-call.ts";

/** A call's values keyed by argparse dest (`dry_run`, `file`, `show`), only those it gives. */
export type CallValues = Readonly<Record<string, unknown>>;

/** Refines a command's base class from the values of one call. */
type Refine = (values: CallValues, base: CommandClass) => CommandClass;

/** MCP tool annotations; they describe the tool's worst case, since a tool has one set of hints. */
export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/** The reviewed policy of one command: its class, how a call's values refine it, its guard. */
export interface CommandPolicy {
  /**
   * The class of a call that uses none of the arguments that change it (no `dry_run`, no
   * `config` write action, no `export --file`, no `doctor --fix`); `refine` changes it.
   */
  readonly baseClass: CommandClass;
  readonly annotations: ToolAnnotations;
  /** Why the command has this class, for reviewers and the catalog listing. */
  readonly reason: string;
  /** The class of one call, from its values, when conda's behaviour depends on them. */
  readonly refine?: Refine;
  /** The disaster guard run on conda's own account of the paths a changing call acts on. */
  readonly guard?: GuardName;
}

/** A value counts as given unless absent, null or false (empty lists still count). */
export function given(values: CallValues, dest: string): boolean {
  const value = values[dest];
  return value !== undefined && value !== null && value !== false;
}

// With --dry-run conda stops before changing anything (it raises DryRunExit at the first
// confirmation); solving may still reach the network, which the tool's hints keep saying.
const dryRunReads: Refine = (values, base) => (values.dry_run === true ? "read" : base);

// Rolling back to a revision and pruning remove packages, which a write alone may not do.
const removesPackagesWith =
  (dest: string): Refine =>
  (values, base) =>
    given(values, dest) ? "destructive" : base;

// conda.cli.main_config.execute_config returns before writing for --show-sources, --show,
// --describe and --validate; --write-default writes next, whatever else is given; then it skips
// the write only when --get names keys, and rewrites its rc file (creating it when absent) in
// every other case, even for a bare `conda config`.
const configWritesUnlessReading: Refine = (values) => {
  const earlyReads =
    given(values, "show_sources") ||
    given(values, "show") ||
    given(values, "describe") ||
    given(values, "validate");
  if (!earlyReads && given(values, "write_default")) return "write";
  const get = values.get;
  const reads =
    given(values, "show_sources") ||
    given(values, "show") ||
    given(values, "describe") ||
    given(values, "validate") ||
    (Array.isArray(get) && get.length > 0);
  if (reads) return "read";
  return changesFrozenProtection(values) ? "destructive" : "write";
};

// `protect_frozen_envs` is the setting --override-frozen lifts for one call; setting it, or
// removing one file's value of it, may lift it for every later call: as destructive as the flag.
function changesFrozenProtection(values: CallValues): boolean {
  return settingsSetOrRemoved(values).includes("protect_frozen_envs");
}

// conda opens --file for writing and truncates whatever is there.
const exportWritesFile: Refine = (values) => (given(values, "file") ? "write" : "read");

const fixWrites: Refine = (values) =>
  given(values, "fix") && values.dry_run !== true ? "write" : "read";

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
      refine: fixWrites,
    },
  ],
  [
    "doctor",
    {
      baseClass: "read",
      annotations: hints(false, true, true, true),
      reason:
        "health report; --fix repairs the environment, possibly reinstalling packages (write)",
      refine: fixWrites,
    },
  ],
  [
    "clean",
    {
      baseClass: "destructive",
      annotations: hints(false, true, true, false),
      reason: "deletes package caches, tarballs and temp files; --force-pkgs-dirs can break envs",
      refine: dryRunReads,
      guard: "tempfiles",
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
        "--show/--get/--describe/--validate read; --set/--append/--remove... rewrite a .condarc (write); changing protect_frozen_envs is destructive",
      refine: configWritesUnlessReading,
      guard: "config_file",
    },
  ],
  [
    "create",
    {
      baseClass: "write",
      annotations: hints(false, false, false, true),
      reason:
        "adds a new environment from channels; overwriting an existing one is refused by guardCall",
      refine: dryRunReads,
      guard: "creation",
    },
  ],
  [
    "env create",
    {
      baseClass: "write",
      annotations: hints(false, false, false, true),
      reason:
        "adds a new environment from a file; overwriting an existing path is refused by guardCall",
      refine: dryRunReads,
      guard: "creation",
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
      guard: "environment_variables",
    },
  ],
  [
    "env config vars unset",
    {
      baseClass: "write",
      annotations: hints(false, true, true, false),
      reason: "removes variables from an environment's state file",
      guard: "environment_variables",
    },
  ],
  [
    "env export",
    {
      baseClass: "read",
      annotations: hints(false, true, true, false),
      reason: "prints the environment; with --file it writes (and silently overwrites) a file",
      refine: exportWritesFile,
      guard: "output_file",
    },
  ],
  [
    "export",
    {
      baseClass: "read",
      annotations: hints(false, true, true, false),
      reason: "prints the environment; with --file it writes (and silently overwrites) a file",
      refine: exportWritesFile,
      guard: "output_file",
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
      refine: dryRunReads,
      guard: "removal",
    },
  ],
  [
    "env update",
    {
      baseClass: "write",
      annotations: hints(false, true, false, true),
      reason: "changes an environment from a file; --prune removes packages",
      refine: removesPackagesWith("prune"),
      guard: "in_place",
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
      refine: dryRunReads,
      guard: "shell_setup",
    },
  ],
  [
    "install",
    {
      baseClass: "write",
      annotations: hints(false, true, true, true),
      reason: "changes an environment; the solver may replace or remove other packages",
      refine: (values, base) => dryRunReads(values, removesPackagesWith("revision")(values, base)),
      guard: "in_place",
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
      reason:
        "builds a package from untracked files (over an existing tarball: destructive); --reset deletes them (destructive)",
      // conda checks --which, then --reset, then --untracked; --reset wins here whatever the order.
      // Building writes a tarball named from --pkg-name; onto an existing file the package guard
      // asks for --allow-destructive, as export --file does.
      refine: (values) => {
        if (given(values, "reset")) return "destructive";
        return given(values, "which") || given(values, "untracked") ? "read" : "write";
      },
      guard: "package",
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
      refine: dryRunReads,
      guard: "removal_or_in_place",
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
      // rename prints its clone and rm steps instead of running them under --dry-run.
      refine: dryRunReads,
      guard: "rename",
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
      refine: dryRunReads,
      guard: "in_place",
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
