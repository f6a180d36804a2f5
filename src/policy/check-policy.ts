import type { CommandClass } from "./command-class.ts";

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
