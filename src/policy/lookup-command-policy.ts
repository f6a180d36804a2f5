import {
  BUILTIN_COMMAND_POLICIES,
  type CommandPolicy,
  UNKNOWN_COMMAND_POLICY,
} from "./command-policies.ts";

/** Where a command comes from, as the catalog knows it. */
export interface CommandOrigin {
  /** True when an external plugin registered the command (conda's bundled plugins are not). */
  readonly external?: boolean;
}

/** A command's reviewed policy, or the cautious default, and whether it was reviewed. */
export interface ResolvedCommandPolicy extends CommandPolicy {
  /** False for commands missing from the reviewed table and for external plugin commands. */
  readonly known: boolean;
}

/** The reviewed policy of a canonical command path; unknown and external commands get `exec`. */
export function lookupCommandPolicy(
  path: readonly string[],
  origin: CommandOrigin = {},
): ResolvedCommandPolicy {
  // An external plugin cannot take over a built-in name today, but if conda ever drops a
  // command a plugin could reuse its name: the plugin's own code would then run.
  const policy = origin.external ? undefined : BUILTIN_COMMAND_POLICIES.get(path.join(" "));
  return policy ? { ...policy, known: true } : { ...UNKNOWN_COMMAND_POLICY, known: false };
}
