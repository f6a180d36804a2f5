import { describe, expect, test } from "bun:test";
import {
  COMMAND_CLASSES,
  type CommandClass,
  checkExecutePolicy,
  checkPolicy,
  type PolicyOptions,
} from "../../src/policy/check-policy.ts";

const NONE: PolicyOptions = { allowWrite: false, allowDestructive: false, allowExec: false };
const WRITE: PolicyOptions = { ...NONE, allowWrite: true };
const DESTRUCTIVE: PolicyOptions = { ...NONE, allowDestructive: true };
const EXEC: PolicyOptions = { ...NONE, allowExec: true };
const ALL: PolicyOptions = { allowWrite: true, allowDestructive: true, allowExec: true };

const FLAG: Record<Exclude<CommandClass, "read">, string> = {
  write: "--allow-write",
  destructive: "--allow-destructive",
  exec: "--allow-exec",
};

// [class, options, allowed]
const table: [CommandClass, string, PolicyOptions, boolean][] = [
  ["read", "no option", NONE, true],
  ["write", "no option", NONE, false],
  ["write", "--allow-write", WRITE, true],
  ["write", "--allow-destructive", DESTRUCTIVE, true],
  ["write", "--allow-exec", EXEC, false],
  ["destructive", "no option", NONE, false],
  ["destructive", "--allow-write", WRITE, false],
  ["destructive", "--allow-destructive", DESTRUCTIVE, true],
  ["destructive", "--allow-exec", EXEC, false],
  ["exec", "no option", NONE, false],
  ["exec", "--allow-write", WRITE, false],
  ["exec", "--allow-destructive", DESTRUCTIVE, false],
  ["exec", "--allow-exec", EXEC, true],
  ["exec", "every option", ALL, true],
];

describe("checkPolicy", () => {
  test.each(table)("%s with %s: allowed is %p", (cls, _label, options, allowed) => {
    const decision = checkPolicy(cls, options);
    expect(decision.allowed).toBe(allowed);
    if (!decision.allowed && cls !== "read") {
      expect(decision.message).toContain(`(${cls})`);
      expect(decision.message).toContain(`Start conda-mcp with ${FLAG[cls]} to allow it.`);
    }
  });

  test("every class beyond read is refused without its option and allowed with it", () => {
    for (const cls of COMMAND_CLASSES) {
      if (cls === "read") continue;
      expect(checkPolicy(cls, NONE).allowed).toBe(false);
      const own: PolicyOptions = {
        allowWrite: cls === "write",
        allowDestructive: cls === "destructive",
        allowExec: cls === "exec",
      };
      expect(checkPolicy(cls, own)).toEqual({ allowed: true });
    }
  });

  test("the write refusal reads as the product documents it", () => {
    expect(checkPolicy("write", NONE)).toEqual({
      allowed: false,
      message:
        "This call modifies a conda environment, conda's configuration or a file (write). " +
        "Start conda-mcp with --allow-write to allow it.",
    });
  });
});

describe("checkExecutePolicy", () => {
  const cases: [CommandClass, PolicyOptions, string | null][] = [
    ["read", NONE, "--allow-exec"],
    ["read", EXEC, null],
    ["write", EXEC, "--allow-write"],
    ["write", { ...EXEC, allowWrite: true }, null],
    ["write", { ...EXEC, allowDestructive: true }, null],
    ["write", WRITE, "--allow-exec"],
    ["write", NONE, "--allow-exec and --allow-write"],
    ["destructive", { ...EXEC, allowWrite: true }, "--allow-destructive"],
    ["destructive", DESTRUCTIVE, "--allow-exec"],
    ["destructive", NONE, "--allow-exec and --allow-destructive"],
    ["exec", NONE, "--allow-exec"],
    ["exec", EXEC, null],
  ];

  test.each(cases)("a %s command line with %j needs %p", (cls, options, missing) => {
    const decision = checkExecutePolicy(cls, options);
    if (missing === null) {
      expect(decision).toEqual({ allowed: true });
      return;
    }
    expect(decision.allowed).toBe(false);
    if (!decision.allowed) {
      expect(decision.message).toContain("conda_execute");
      expect(decision.message).toContain(`Start conda-mcp with ${missing} to allow it.`);
    }
  });
});
