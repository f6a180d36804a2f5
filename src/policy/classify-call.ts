import type { CallFacts } from "./call-facts.ts";
import type { CommandClass } from "./check-policy.ts";
import {
  BUILTIN_COMMAND_POLICIES,
  type CallValues,
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

/**
 * The class of one call: its command's reviewed class refined by the call's values where
 * conda's behaviour depends on them. Unknown and external plugin commands are `exec`.
 */
export function classifyCall(policy: ResolvedCommandPolicy, values: CallValues): CommandClass {
  if (!policy.known) return "exec";
  const cls = policy.refine ? policy.refine(values, policy.baseClass) : policy.baseClass;
  // A frozen environment was marked by its owner as not to be changed: lifting conda's
  // protection is destructive whatever else the call does (a dry run too).
  if (cls !== "exec" && overridesFrozen(values)) return "destructive";
  return cls;
}

/**
 * Whether a call gives `--override-frozen`: a store_false action on dest `protect_frozen_envs`,
 * which a typed call gives as true and conda's namespace then holds as false; either way the
 * dest is there only when the option is passed.
 */
function overridesFrozen(values: CallValues): boolean {
  const value = values.protect_frozen_envs;
  return value !== undefined && value !== null;
}

/**
 * Whether a call must pass its command's disaster guard, decided on conda's facts: a call that
 * writes or destroys. A dry run changes nothing and passes no guard, but for an in-place change:
 * install and update delete `*.c~` trash in a target that is not an environment before they
 * look at --dry-run (conda.cli.install.validate_install_command), so that guard still holds.
 */
export function needsGuard(
  policy: ResolvedCommandPolicy,
  cls: CommandClass,
  values: CallValues,
): boolean {
  if (policy.guard === undefined) return false;
  if (values.dry_run === true) return policy.guard === "in_place";
  return cls === "write" || cls === "destructive";
}

/** What the catalog knows of a command conda's parser chose: whether an external plugin owns it. */
export type FindCommand = (path: readonly string[]) => { external: boolean } | null;

/** The class of a raw command line from conda's account of it, and its command's policy. */
export interface FactsClassification {
  readonly cls: CommandClass;
  /** The policy of the command conda would run; null when it runs none from the catalog. */
  readonly policy: ResolvedCommandPolicy | null;
}

/**
 * Classifies a raw command line by what conda's own parser made of it: conda only printing
 * (help, version) or stopping at an error is a read; a command the catalog does not hold, and
 * `shell.*`, are exec; any other command gets its reviewed class refined by the values given.
 */
export function classifyFacts(facts: CallFacts, findCommand: FindCommand): FactsClassification {
  switch (facts.outcome) {
    case "prints":
    case "fails":
      return { cls: "read", policy: null };
    case "shell":
    case "unknown":
      // The server refuses an unknown outcome before it gets here; exec needs the most.
      return { cls: "exec", policy: null };
    case "parsed": {
      const command = findCommand(facts.path);
      if (command === null) return { cls: "exec", policy: null };
      const policy = lookupCommandPolicy(facts.path, command);
      return { cls: classifyCall(policy, facts.values), policy };
    }
  }
}
