import {
  CLASS_DESCRIPTIONS,
  type PolicyDecision,
  type PolicyOptions,
  requiredOption,
} from "./check-policy.ts";
import type { CommandClass } from "./command-class.ts";

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
