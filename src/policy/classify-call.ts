import type { CommandClass } from "./command-class.ts";
import { type CallValues, given } from "./command-policies.ts";
import type { ResolvedCommandPolicy } from "./lookup-command-policy.ts";

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
