import type { CallFacts } from "./call-facts.ts";
import { classifyCall } from "./classify-call.ts";
import type { CommandClass } from "./command-class.ts";
import { lookupCommandPolicy, type ResolvedCommandPolicy } from "./lookup-command-policy.ts";

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
