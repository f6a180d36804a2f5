import { describe, expect, test } from "bun:test";
import type { CommandClass } from "../../src/policy/check-policy.ts";
import { classifyCall, lookupCommandPolicy, needsGuard } from "../../src/policy/classify-call.ts";
import type { CallValues } from "../../src/policy/command-policies.ts";

const cases: [string, CallValues, CommandClass][] = [
  // Plain calls get the reviewed class.
  ["info", {}, "read"],
  ["list", { name: "base" }, "read"],
  ["search", { match_spec: "numpy" }, "read"],
  ["notices", {}, "read"],
  ["env list", {}, "read"],
  ["env config vars list", { name: "x" }, "read"],
  ["install", { packages: ["numpy"] }, "write"],
  ["create", { name: "x", packages: ["python"] }, "write"],
  ["update", { update_all: true }, "write"],
  ["env update", { file: "environment.yml" }, "write"],
  ["env config vars set", { vars: ["A=1"] }, "write"],
  ["env config vars unset", { vars: ["A"] }, "write"],
  ["remove", { package_names: ["numpy"] }, "destructive"],
  ["remove", { all: true, name: "x" }, "destructive"],
  ["env remove", { name: "x" }, "destructive"],
  ["clean", { all: true }, "destructive"],
  ["rename", { name: "a", destination: "b" }, "destructive"],
  ["init", { shells: ["bash"] }, "destructive"],
  ["run", { executable_call: ["python", "-V"] }, "exec"],
  // --dry-run changes nothing.
  ["install", { packages: ["numpy"], dry_run: true }, "read"],
  ["create", { name: "x", dry_run: true }, "read"],
  ["update", { update_all: true, dry_run: true }, "read"],
  ["remove", { all: true, name: "x", dry_run: true }, "read"],
  ["env remove", { name: "x", dry_run: true }, "read"],
  ["clean", { all: true, dry_run: true }, "read"],
  ["rename", { name: "a", destination: "b", dry_run: true }, "read"],
  ["init", { dry_run: true }, "read"],
  ["install", { packages: ["numpy"], dry_run: false }, "write"],
  // conda 26.7's env create refuses --dry-run on an existing environment before deleting it.
  ["env create", { name: "x", dry_run: true }, "read"],
  ["env create", { name: "x", dry_run: true, yes: true }, "read"],
  // config writes its rc file unless it is asked to read (real conda: `conda config` and
  // `conda config --get` create ~/.condarc).
  ["config", {}, "write"],
  ["config", { json: true }, "write"],
  ["config", { system: true }, "write"],
  ["config", { file: "notes.txt" }, "write"],
  ["config", { get: [] }, "write"],
  ["install", { revision: 1 }, "destructive"],
  ["install", { revision: 1, dry_run: true }, "read"],
  ["env update", { prune: true, file: "environment.yml" }, "destructive"],
  ["env update", { file: "environment.yml" }, "write"],
  ["config", { show: [] }, "read"],
  ["config", { show: ["channels"], json: true }, "read"],
  ["config", { show_sources: true }, "read"],
  ["config", { describe: ["channels"] }, "read"],
  ["config", { validate: true }, "read"],
  ["config", { get: ["channels"], file: "x.yml" }, "read"],
  // conda returns before writing for any read action, whatever else is given.
  ["config", { get: ["channels"], set: [["a", "b"]] }, "read"],
  ["config", { show: [], remove_key: ["channels"] }, "read"],
  ["config", { show: false, set: undefined }, "write"],
  ["config", { set: [["channel_priority", "strict"]] }, "write"],
  // protect_frozen_envs is what --override-frozen lifts; changing it in a file lifts it for good.
  ["config", { set: [["protect_frozen_envs", "false"]] }, "destructive"],
  [
    "config",
    {
      set: [
        ["channel_priority", "strict"],
        ["protect_frozen_envs", "no"],
      ],
    },
    "destructive",
  ],
  ["config", { remove_key: ["protect_frozen_envs"], file: "x.yml" }, "destructive"],
  ["config", { set: [["protect_frozen_envs_note", "x"]] }, "write"],
  ["config", { show: [], set: [["protect_frozen_envs", "false"]] }, "read"],
  ["config", { append: [["channels", "conda-forge"]] }, "write"],
  ["config", { prepend: [["channels", "conda-forge"]] }, "write"],
  ["config", { add: [["channels", "conda-forge"]] }, "write"],
  ["config", { remove: [["channels", "defaults"]] }, "write"],
  ["config", { remove_key: ["channels"] }, "write"],
  ["config", { clear: ["channels"] }, "write"],
  ["config", { stdin: true }, "write"],
  ["config", { write_default: true }, "write"],
  ["config", { set: [] }, "write"],
  ["config", { some_future_option: "x" }, "write"],
  // export writes only with a file.
  ["export", {}, "read"],
  ["export", { format: "environment-yaml" }, "read"],
  ["export", { file: "environment.yml" }, "write"],
  ["env export", { name: "x" }, "read"],
  ["env export", { name: "x", file: "environment.yml" }, "write"],
  // doctor and check repair only with --fix, and not under --dry-run.
  ["doctor", {}, "read"],
  ["doctor", { fix: true }, "write"],
  ["doctor", { fix: true, dry_run: true }, "read"],
  ["check", { fix: true }, "write"],
  ["check", { list: true }, "read"],
  // package: --which and --untracked read, --reset deletes, building writes.
  ["package", { which: ["bin/python"] }, "read"],
  ["package", { untracked: true }, "read"],
  ["package", { reset: true }, "destructive"],
  ["package", { which: ["bin/python"], reset: true }, "destructive"],
  ["package", { pkg_name: "x" }, "write"],
  // --write-default writes before --get is looked at.
  ["config", { write_default: true, get: ["channels"] }, "write"],
  ["config", { write_default: true, show: [] }, "read"],
  // --override-frozen (dest protect_frozen_envs): true in a typed call, false in conda's namespace.
  ["install", { packages: ["numpy"], protect_frozen_envs: true }, "destructive"],
  ["install", { packages: ["numpy"], protect_frozen_envs: false }, "destructive"],
  ["install", { packages: ["numpy"], protect_frozen_envs: true, dry_run: true }, "destructive"],
  ["remove", { package_names: ["numpy"], protect_frozen_envs: true }, "destructive"],
  ["doctor", { fix: true, protect_frozen_envs: true }, "destructive"],
  // Unknown commands are exec whatever their arguments say.
  ["greet", { dry_run: true }, "exec"],
];

describe("classifyCall", () => {
  test.each(cases)("%s %j is %s", (path, args, expected) => {
    expect(classifyCall(lookupCommandPolicy(path.split(" ")), args)).toBe(expected);
  });
});

test("a guarded command's writes and destructions pass its guard; its plain reads do not", () => {
  const install = lookupCommandPolicy(["install"]);
  expect(needsGuard(install, "write", {})).toBe(true);
  expect(needsGuard(install, "destructive", { revision: 1 })).toBe(true);
  expect(needsGuard(lookupCommandPolicy(["export"]), "read", {})).toBe(false);
  expect(needsGuard(lookupCommandPolicy(["clean"]), "destructive", { all: true })).toBe(true);
  // A command without a guard has nothing to check, whatever the call does.
  expect(needsGuard(lookupCommandPolicy(["run"]), "exec", {})).toBe(false);
});

test("a dry run passes no guard but the in-place one: conda deletes trash there first", () => {
  expect(needsGuard(lookupCommandPolicy(["install"]), "read", { dry_run: true })).toBe(true);
  expect(needsGuard(lookupCommandPolicy(["update"]), "read", { dry_run: true })).toBe(true);
  for (const path of ["create", "env create", "rename", "remove", "env remove", "clean"]) {
    const policy = lookupCommandPolicy(path.split(" "));
    expect([path, needsGuard(policy, "read", { dry_run: true })]).toEqual([path, false]);
  }
});
