import type { CommandClass } from "./command-class.ts";
import type { CallValues } from "./command-policies.ts";
import type { ResolvedCommandPolicy } from "./lookup-command-policy.ts";

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
