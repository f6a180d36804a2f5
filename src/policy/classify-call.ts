import type { CallFacts } from "./call-facts.ts";
import type { CommandClass } from "./check-policy.ts";
import {
  BUILTIN_COMMAND_POLICIES,
  type CallValues,
  type CommandPolicy,
  given,
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
  // A frozen environment was marked by its owner as not to be changed; overriding that is
  // more than a routine change.
  if (cls === "write" && given(values, "override_frozen")) return "destructive";
  return cls;
}

/**
 * Whether a call must pass its command's disaster guard, decided on conda's facts: a call that
 * writes or destroys, and a dry run too, since conda still cleans the target first (install
 * deletes `*.c~` trash in a folder that is not an environment before it looks at --dry-run).
 */
export function needsGuard(
  policy: ResolvedCommandPolicy,
  cls: CommandClass,
  values: CallValues,
): boolean {
  if (policy.guard === undefined) return false;
  return cls === "write" || cls === "destructive" || values.dry_run === true;
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
