import { describe, expect, test } from "bun:test";
import { buildCatalog } from "../../src/catalog/build-catalog.ts";
import { lookupCommandPolicy } from "../../src/policy/classify-call.ts";
import { POLICY_STARTUP_OPTIONS } from "../../src/policy/policy-startup-options.ts";
import {
  parseToolList,
  type SelectableTool,
  type SurfaceOptions,
  selectTools,
} from "../../src/policy/select-tools.ts";
import { loadReferenceTree } from "../support/reference-tree.ts";

const catalog = buildCatalog((await loadReferenceTree()).tree);
const tools: SelectableTool[] = [
  ...catalog.commands
    .filter((c) => c.toolName !== null)
    .map((c) => ({
      name: c.toolName as string,
      path: c.path,
      baseClass: lookupCommandPolicy(c.path).baseClass,
    })),
  { name: "conda_execute", path: null, baseClass: "exec" },
];
const names = (options: SurfaceOptions) => selectTools(tools, options).tools.map((t) => t.name);
const DEFAULT: SurfaceOptions = { readOnlyTools: false, tools: null, allowExec: false };

describe("selectTools", () => {
  test("by default every typed tool is listed, whatever its class", () => {
    const listed = names(DEFAULT);
    expect(listed).toContain("conda_remove");
    expect(listed).toContain("conda_run");
    expect(listed).toHaveLength(tools.length - 1);
  });

  test("conda_execute is listed only with --allow-exec", () => {
    expect(names(DEFAULT)).not.toContain("conda_execute");
    expect(names({ ...DEFAULT, allowExec: true })).toContain("conda_execute");
  });

  test("--read-only-tools lists only tools whose plain call reads", () => {
    const listed = names({ ...DEFAULT, readOnlyTools: true, allowExec: true });
    expect(listed).toContain("conda_info");
    expect(listed).toContain("conda_config");
    expect(listed).toContain("conda_search");
    for (const hidden of [
      "conda_install",
      "conda_remove",
      "conda_run",
      "conda_execute",
      "conda_init",
    ]) {
      expect(listed).not.toContain(hidden);
    }
    for (const tool of selectTools(tools, { ...DEFAULT, readOnlyTools: true }).tools) {
      expect(tool.baseClass).toBe("read");
    }
  });

  test("--tools takes tool names and command paths, and reports what matched nothing", () => {
    const selection = selectTools(tools, {
      ...DEFAULT,
      tools: ["conda_env_list", "install", "env config vars set", "conda_nope"],
    });
    expect(selection.tools.map((t) => t.name).sort()).toEqual([
      "conda_env_config_vars_set",
      "conda_env_list",
      "conda_install",
    ]);
    expect(selection.unmatched).toEqual(["conda_nope"]);
  });

  test("--tools and --read-only-tools together list tools that pass both", () => {
    const listed = names({ ...DEFAULT, readOnlyTools: true, tools: ["list", "install"] });
    expect(listed).toEqual(["conda_list"]);
  });

  test("naming conda_execute in --tools still needs --allow-exec", () => {
    expect(names({ ...DEFAULT, tools: ["conda_execute"] })).toEqual([]);
    expect(names({ ...DEFAULT, tools: ["conda_execute"], allowExec: true })).toEqual([
      "conda_execute",
    ]);
    expect(selectTools(tools, { ...DEFAULT, tools: ["conda_execute"] }).unmatched).toEqual([]);
  });
});

describe("parseToolList", () => {
  test("splits on commas, trims, collapses inner spaces and drops blanks", () => {
    expect(parseToolList(" conda_list, env   list ,,install,")).toEqual([
      "conda_list",
      "env list",
      "install",
    ]);
    expect(parseToolList("")).toEqual([]);
  });
});

describe("POLICY_STARTUP_OPTIONS", () => {
  test("lists each policy option once, with help, and --allow-destructive sets both classes", () => {
    expect(POLICY_STARTUP_OPTIONS.map((o) => o.flags)).toEqual([
      ["--allow-write"],
      ["--allow-destructive"],
      ["--allow-exec"],
      ["--read-only-tools"],
      ["--tools"],
    ]);
    for (const option of POLICY_STARTUP_OPTIONS) {
      expect(option.help.length).toBeGreaterThan(20);
    }
    const destructive = POLICY_STARTUP_OPTIONS.find((o) => o.flags[0] === "--allow-destructive");
    expect(destructive?.help).toContain("implies --allow-write");
    expect(destructive).toMatchObject({ sets: { allowWrite: true, allowDestructive: true } });
  });
});
