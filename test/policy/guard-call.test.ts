import { describe, expect, test } from "bun:test";
import type { ParsedCallFacts, TargetFacts, TargetRole } from "../../src/policy/call-facts.ts";
import { type GuardName, guardCall } from "../../src/policy/guard-call.ts";

const ALL = { allowWrite: true, allowDestructive: true, allowExec: true };
const WRITE = { allowWrite: true, allowDestructive: false, allowExec: false };

type Kind = "missing" | "env" | "base" | "folder" | "file" | "holder" | "nesting" | "huge";

function target(role: TargetRole, kind: Kind, extra: Partial<TargetFacts> = {}): TargetFacts {
  const exists = kind !== "missing";
  return {
    role,
    path: `/x/${kind}`,
    exists,
    is_dir: exists && kind !== "file",
    is_environment: ["env", "base", "nesting", "huge"].includes(kind),
    is_base: kind === "base",
    holds_installation: kind === "base" || kind === "holder",
    nested_environment: kind === "nesting" ? true : kind === "huge" ? null : false,
    ...extra,
  };
}

function facts(
  targets: TargetFacts[],
  values: Record<string, unknown> = {},
  targetError: string | null = null,
): ParsedCallFacts {
  return {
    outcome: "parsed",
    path: ["x"],
    values,
    targets,
    target_error: targetError,
  };
}

function verdict(guard: GuardName, f: ParsedCallFacts, options = ALL): boolean {
  return guardCall(guard, f, options).allowed;
}

describe("guardCall decides from conda's facts alone", () => {
  test.each<[Kind, boolean]>([
    ["missing", true],
    ["env", true],
    ["base", false],
    ["folder", false],
    ["file", false],
    ["holder", false],
    ["nesting", false],
    ["huge", false],
  ])("deleting a %s target: allowed %p", (kind, allowed) => {
    expect(verdict("removal", facts([target("prefix", kind)]))).toBe(allowed);
    expect(verdict("removal_or_in_place", facts([target("prefix", kind)], { all: true }))).toBe(
      allowed,
    );
  });

  test.each<[Kind, boolean]>([
    ["missing", true],
    ["env", false],
    ["base", false],
    ["folder", false],
    ["file", false],
  ])("creating at a %s target: allowed %p", (kind, allowed) => {
    expect(verdict("creation", facts([target("prefix", kind)]))).toBe(allowed);
  });

  test.each<[Kind, boolean]>([
    ["missing", true],
    ["env", true],
    ["base", true],
    ["folder", false],
    ["file", false],
  ])("changing a %s target in place: allowed %p", (kind, allowed) => {
    expect(verdict("in_place", facts([target("prefix", kind)]))).toBe(allowed);
    expect(verdict("removal_or_in_place", facts([target("prefix", kind)]))).toBe(allowed);
  });

  test("rename needs a deletable source and a new destination", () => {
    const env = target("prefix", "env");
    expect(verdict("rename", facts([env, target("destination", "missing")]))).toBe(true);
    for (const kind of ["env", "folder", "file", "base"] as const) {
      expect(verdict("rename", facts([env, target("destination", kind)]))).toBe(false);
    }
    expect(
      verdict("rename", facts([target("prefix", "nesting"), target("destination", "missing")])),
    ).toBe(false);
    // conda would delete a destination inside the source along with the source.
    const inside = target("destination", "missing", { inside_source: true });
    expect(guardCall("rename", facts([env, inside]), ALL)).toEqual({
      allowed: false,
      message:
        "Refused: the destination (/x/missing) lies inside the environment renamed; conda would delete it with the source.",
    });
  });

  test("config adds to pkgs_dirs only a new folder or a package cache", () => {
    const rc = target("rc_file", "missing", { is_config: true });
    const pkgs = (kind: Kind, is_package_cache: boolean, is_relative = false) =>
      target("pkgs_dir", kind, { is_package_cache, is_relative });
    expect(verdict("config_file", facts([rc, pkgs("missing", false)]))).toBe(true);
    expect(verdict("config_file", facts([rc, pkgs("folder", true)]))).toBe(true);
    for (const kind of ["folder", "file", "env", "base"] as const) {
      expect(verdict("config_file", facts([rc, pkgs("missing", false), pkgs(kind, false)]))).toBe(
        false,
      );
    }
    // A relative entry moves with every later call's working directory.
    expect(verdict("config_file", facts([rc, pkgs("missing", false, true)]))).toBe(false);
  });

  test("config never moves conda's root prefix", () => {
    const rc = target("rc_file", "missing", { is_config: true });
    for (const key of ["root_prefix", "root_dir"]) {
      expect(verdict("config_file", facts([rc], { set: [[key, "/x/folder"]] }))).toBe(false);
      expect(verdict("config_file", facts([rc], { remove_key: [key] }))).toBe(false);
    }
    expect(verdict("config_file", facts([rc], { set: [["channel_priority", "strict"]] }))).toBe(
      true,
    );
  });

  test("environment variables: plain names, values no shell runs, never a frozen environment", () => {
    const env = target("prefix", "env");
    const set = (vars: string[], prefix = env) =>
      guardCall("environment_variables", facts([prefix], { vars }), ALL).allowed;
    expect(set(["MY_FLAGS=-O2 -g", "URL=https://x/?a=b&c=d", "EMPTY=", "P=$HOME/bin"])).toBe(true);
    expect(set(["PLAIN"])).toBe(true); // unset names
    for (const bad of ["X=a'b", 'X=a"b', "X=a`b`", "X=$(id)", "X=a\nb", "X;id=1", "=1", "1X=1"]) {
      expect([bad, set([bad])]).toEqual([bad, false]);
    }
    expect(set(["A=1"], target("prefix", "env", { is_frozen: true }))).toBe(false);
    // The variables of create's and env update's environment files, likewise.
    const withFile = (guard: GuardName, prefix: TargetFacts, vars: string[]) =>
      guardCall(guard, { ...facts([prefix]), file_variables: vars }, ALL).allowed;
    expect(withFile("creation", target("prefix", "missing"), ["A=1"])).toBe(true);
    expect(withFile("creation", target("prefix", "missing"), ["A=a'b"])).toBe(false);
    expect(withFile("in_place", env, ["A=`id`"])).toBe(false);
    expect(set(["A=1"], target("prefix", "folder"))).toBe(false);
    // A file whose variables could not be read (stdin, a pipe) is refused with the reason.
    const unread = facts([env], {}, "Unknown: /dev/stdin is stdin");
    expect(guardCall("in_place", unread, ALL)).toEqual({
      allowed: false,
      message: expect.stringContaining("/dev/stdin is stdin"),
    });
    expect(verdict("creation", { ...unread, targets: [target("prefix", "missing")] })).toBe(false);
  });

  test("rename and package --reset never touch a frozen environment, which conda lets them", () => {
    const icy = target("prefix", "env", { is_frozen: true });
    expect(verdict("rename", facts([icy, target("destination", "missing")]))).toBe(false);
    expect(verdict("package", facts([icy], { reset: true }))).toBe(false);
    expect(verdict("package", facts([target("prefix", "env")], { reset: true }))).toBe(true);
  });

  test("init never replaces base's conda with a source checkout (--dev)", () => {
    expect(verdict("shell_setup", facts([], { dev: true }))).toBe(false);
    expect(verdict("shell_setup", facts([], { reverse: true }))).toBe(true);
  });

  test("package builds only a tarball with a plain name", () => {
    const env = target("prefix", "env");
    const tarball = (plain_name: boolean) => target("output_file", "missing", { plain_name });
    expect(verdict("package", facts([env, tarball(true)]))).toBe(true);
    expect(verdict("package", facts([env, tarball(false)]))).toBe(false);
  });

  test("export writes only files named as conda's export formats name theirs", () => {
    const out = (named_as_export: boolean) =>
      facts([target("output_file", "missing", { named_as_export })]);
    expect(verdict("output_file", out(true))).toBe(true);
    expect(verdict("output_file", out(false))).toBe(false);
  });

  test("config refuses settings read from stdin, which it cannot check", () => {
    const rc = target("rc_file", "missing", { is_config: true });
    expect(guardCall("config_file", facts([rc], { stdin: true }), ALL)).toEqual({
      allowed: false,
      message:
        "Refused: conda-mcp does not check settings read from stdin; give them with --set, --append or --prepend.",
    });
    expect(verdict("config_file", facts([rc], { stdin: false }))).toBe(true);
  });

  test("conda's configuration file may be rewritten only when it is one", () => {
    const rc = (extra: Partial<TargetFacts>, kind: Kind = "file") =>
      facts([target("rc_file", kind, extra)]);
    // A new file only with a configuration file's name: a shell or a hook runs files by name.
    expect(verdict("config_file", rc({ is_config: true }, "missing"))).toBe(true);
    expect(verdict("config_file", rc({ is_config: false }, "missing"))).toBe(false);
    expect(verdict("config_file", rc({ is_config: true }))).toBe(true);
    expect(verdict("config_file", rc({ is_config: false }))).toBe(false);
    expect(verdict("config_file", rc({}, "folder"))).toBe(false);
  });

  test("overwriting an output file is destructive; a new one is a write", () => {
    const out = (kind: Kind) => facts([target("output_file", kind)]);
    expect(verdict("output_file", out("missing"), WRITE)).toBe(true);
    expect(verdict("output_file", out("file"), WRITE)).toBe(false);
    expect(guardCall("output_file", out("file"), WRITE)).toMatchObject({
      message: expect.stringContaining("--allow-destructive"),
    });
    expect(verdict("output_file", out("file"), ALL)).toBe(true);
    expect(verdict("output_file", out("folder"), ALL)).toBe(false);
  });

  test("a target conda could not work out is refused with conda's reason", () => {
    const decision = guardCall("creation", facts([], {}, "EnvironmentFileNotFound: nope"), ALL);
    expect(decision).toEqual({
      allowed: false,
      message: expect.stringContaining("EnvironmentFileNotFound: nope"),
    });
    // A command without a target of that role has nothing to guard.
    expect(verdict("output_file", facts([target("prefix", "env")]))).toBe(true);
  });
});
