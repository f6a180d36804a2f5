import { describe, expect, test } from "bun:test";
import { buildCatalog } from "../../src/catalog/build-catalog.ts";
import type { RawParser } from "../../src/introspection-payload.ts";
import {
  classifyCall as classifyValues,
  lookupCommandPolicy,
} from "../../src/policy/classify-call.ts";
import { BUILTIN_COMMAND_POLICIES } from "../../src/policy/command-policies.ts";
import { loadReferenceTree } from "../support/reference-tree.ts";

const reference = await loadReferenceTree();

const classifyCall = (
  path: string[],
  values: Record<string, unknown>,
  origin: { external?: boolean } = {},
) => classifyValues(lookupCommandPolicy(path, origin), values);

function terminals(parser: RawParser): RawParser[] {
  if (parser.subcommands.length === 0) return parser.path.length > 0 ? [parser] : [];
  return parser.subcommands.flatMap(terminals);
}

const commands = terminals(reference.tree);
const paths = commands.map((c) => c.path.join(" "));

describe("the reviewed table against the conda 26.7 reference tree", () => {
  // CONDA-FACTS says "36 terminal commands" but lists 30 names; the recorded tree has those 30.
  test("the table covers exactly the tree's terminal commands", () => {
    expect([...BUILTIN_COMMAND_POLICIES.keys()].sort()).toEqual([...paths].sort());
    expect(paths).toHaveLength(30);
  });

  test.each(paths)("`%s` has a reviewed class", (path) => {
    const policy = lookupCommandPolicy(path.split(" "));
    expect(policy.known).toBe(true);
    expect(policy.reason.length).toBeGreaterThan(0);
  });

  test("the table has no entry for a command the tree does not have", () => {
    expect([...BUILTIN_COMMAND_POLICIES.keys()].filter((k) => !paths.includes(k))).toEqual([]);
  });

  test("a command missing from the table gets the cautious default", () => {
    const tree = structuredClone(reference.tree);
    const added = structuredClone(tree.subcommands[0] as RawParser);
    added.path = ["frobnicate"];
    tree.subcommands.push(added);
    const newPaths = terminals(tree).map((c) => c.path);
    const unreviewed = newPaths.filter((p) => !lookupCommandPolicy(p).known);
    expect(unreviewed).toEqual([["frobnicate"]]);
    expect(lookupCommandPolicy(["frobnicate"]).baseClass).toBe("exec");
    expect(classifyCall(["frobnicate"], {})).toBe("exec");
  });

  test("plugin subcommands and external plugin commands are exec", () => {
    for (const path of [["greet"], ["tools", "list"], ["env"], ["menuinst"]]) {
      expect(classifyCall(path, {})).toBe("exec");
      expect(lookupCommandPolicy(path).annotations.destructiveHint).toBe(true);
    }
    // Even under a reviewed name, an external plugin's code is what runs.
    expect(classifyCall(["list"], {}, { external: true })).toBe("exec");
    expect(lookupCommandPolicy(["list"], { external: true }).known).toBe(false);
  });

  test("conda's bundled plugin commands are reviewed, not treated as external", () => {
    const bundled = commands.filter((c) => c.plugin !== null || c.path[0] === "plugins");
    expect(bundled.map((c) => c.path.join(" ")).sort()).toEqual([
      "check",
      "doctor",
      "plugins list",
    ]);
    for (const command of bundled) {
      expect(command.plugin?.external ?? false).toBe(false);
      expect(lookupCommandPolicy(command.path).known).toBe(true);
    }
  });
});

describe("annotations agree with classes", () => {
  test.each(paths)("`%s`", (path) => {
    const { baseClass, annotations } = lookupCommandPolicy(path.split(" "));
    if (annotations.readOnlyHint) {
      expect(baseClass).toBe("read");
      expect(annotations.destructiveHint).toBe(false);
    }
    if (baseClass !== "read") expect(annotations.readOnlyHint).toBe(false);
    if (baseClass === "destructive" || baseClass === "exec") {
      expect(annotations.destructiveHint).toBe(true);
    }
  });

  test("network, local and mock commands carry the hints the review chose", () => {
    const hint = (path: string) => lookupCommandPolicy(path.split(" ")).annotations;
    expect(hint("search")).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(hint("info").openWorldHint).toBe(false);
    expect(hint("list").openWorldHint).toBe(false);
    expect(hint("activate").readOnlyHint).toBe(true);
    expect(hint("deactivate").readOnlyHint).toBe(true);
    for (const path of ["install", "create", "update", "env create", "env update"]) {
      expect(hint(path).openWorldHint).toBe(true);
      expect(hint(path).readOnlyHint).toBe(false);
    }
    expect(hint("create").destructiveHint).toBe(false);
    expect(hint("init").destructiveHint).toBe(true);
    expect(hint("run").openWorldHint).toBe(true);
  });

  test("tools whose calls can write by argument do not claim to be read-only", () => {
    for (const path of ["config", "export", "env export", "doctor", "check"]) {
      const policy = lookupCommandPolicy(path.split(" "));
      expect(policy.baseClass).toBe("read");
      expect(policy.annotations.readOnlyHint).toBe(false);
    }
  });
});

describe("class-changing arguments of every command in the tree are reviewed", () => {
  const catalog = buildCatalog(reference.tree);

  test("every command with --dry-run reads under it", () => {
    const withDryRun = catalog.commands.filter((c) => c.params.some((p) => p.name === "dry_run"));
    expect(withDryRun.map((c) => c.path.join(" ")).sort()).toEqual([
      "check",
      "clean",
      "create",
      "doctor",
      "env create",
      "env remove",
      "init",
      "install",
      "remove",
      "rename",
      "update",
    ]);
    for (const command of withDryRun) {
      expect(classifyCall(command.path, { dry_run: true })).toBe("read");
    }
    expect(classifyCall(["env", "create"], { dry_run: true, yes: true })).toBe("read");
  });

  test("config writes unless a read action is given, whatever else is given", () => {
    const config = catalog.commands.find((c) => c.path.join(" ") === "config");
    const reading = new Set(["show", "show_sources", "describe", "validate", "get"]);
    const names = config?.params.map((p) => p.dest) ?? [];
    expect(names.length).toBeGreaterThan(20);
    for (const name of names) {
      expect([name, classifyCall(["config"], { [name]: ["k", "v"] })]).toEqual([
        name,
        reading.has(name) ? "read" : "write",
      ]);
      expect([name, classifyCall(["config"], { [name]: ["k", "v"], show: [] })]).toEqual([
        name,
        "read",
      ]);
    }
  });

  test("every command that can change an environment or file names a guard", () => {
    for (const path of [
      "create",
      "env create",
      "install",
      "update",
      "env update",
      "remove",
      "env remove",
      "rename",
      "config",
      "export",
      "env export",
      "env config vars set",
      "env config vars unset",
    ]) {
      expect([path, lookupCommandPolicy(path.split(" ")).guard]).toEqual([
        path,
        expect.any(String),
      ]);
    }
  });
});
