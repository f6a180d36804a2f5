import { expect, test } from "bun:test";
import { lookupCommandPolicy } from "../../src/policy/lookup-command-policy.ts";
import { needsGuard } from "../../src/policy/needs-guard.ts";

test("a guarded command's writes, destructions and dry runs pass its guard; its plain reads do not", () => {
  const install = lookupCommandPolicy(["install"]);
  expect(needsGuard(install, "write", {})).toBe(true);
  expect(needsGuard(install, "destructive", { revision: 1 })).toBe(true);
  // conda still deletes trash in the target before it looks at --dry-run.
  expect(needsGuard(install, "read", { dry_run: true })).toBe(true);
  expect(needsGuard(lookupCommandPolicy(["export"]), "read", {})).toBe(false);
  // A command without a guard has nothing to check, whatever the call does.
  expect(needsGuard(lookupCommandPolicy(["clean"]), "destructive", { all: true })).toBe(false);
  expect(needsGuard(lookupCommandPolicy(["run"]), "exec", {})).toBe(false);
});
