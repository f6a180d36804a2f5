/** How much a conda call can do, from least to most powerful; each needs its own startup option. */
export type CommandClass = "read" | "write" | "destructive" | "exec";

/** Every class, least powerful first. */
export const COMMAND_CLASSES: readonly CommandClass[] = ["read", "write", "destructive", "exec"];

/** Startup switches that enable classes beyond `read`. */
export interface PolicyOptions {
  /** `--allow-write`. */
  readonly allowWrite: boolean;
  /** `--allow-destructive`; implies `--allow-write`. */
  readonly allowDestructive: boolean;
  /** `--allow-exec`; implies nothing else. */
  readonly allowExec: boolean;
}

/** Whether a call may run; a refusal says what would allow it. */
export type PolicyDecision =
  | { readonly allowed: true }
  | { readonly allowed: false; message: string };

/** What each class does, as refusals describe it. */
export const CLASS_DESCRIPTIONS: Readonly<Record<CommandClass, string>> = {
  read: "only reads",
  write: "modifies a conda environment, conda's configuration or a file",
  destructive:
    "can delete environments, packages, caches or files, or edits files outside conda such as shell startup files",
  exec: "runs a program or plugin code that conda-mcp cannot inspect",
};

/** The startup option a class needs, or null when it needs none. */
export function requiredOption(cls: CommandClass, options: PolicyOptions): string | null {
  switch (cls) {
    case "read":
      return null;
    case "write":
      return options.allowWrite || options.allowDestructive ? null : "--allow-write";
    case "destructive":
      return options.allowDestructive ? null : "--allow-destructive";
    case "exec":
      return options.allowExec ? null : "--allow-exec";
  }
}

/** Decides whether a call of this class may run under the startup options. */
export function checkPolicy(cls: CommandClass, options: PolicyOptions): PolicyDecision {
  const missing = requiredOption(cls, options);
  if (missing === null) return { allowed: true };
  return {
    allowed: false,
    message: `This call ${CLASS_DESCRIPTIONS[cls]} (${cls}). Start conda-mcp with ${missing} to allow it.`,
  };
}

/**
 * Decides a `conda_execute` call: a raw command line always needs `--allow-exec`, and also the
 * option of the class of the command it names (defense in depth). A refusal names every
 * missing option at once.
 */
export function checkExecutePolicy(cls: CommandClass, options: PolicyOptions): PolicyDecision {
  const missing = new Set<string>();
  if (!options.allowExec) missing.add("--allow-exec");
  const forClass = requiredOption(cls, options);
  if (forClass !== null) missing.add(forClass);
  if (missing.size === 0) return { allowed: true };
  const what =
    cls === "read" || cls === "exec"
      ? `conda_execute runs a raw conda command line (exec)`
      : `conda_execute runs a raw conda command line (exec), and this one ${CLASS_DESCRIPTIONS[cls]} (${cls})`;
  return {
    allowed: false,
    message: `${what}. Start conda-mcp with ${[...missing].join(" and ")} to allow it.`,
  };
}
