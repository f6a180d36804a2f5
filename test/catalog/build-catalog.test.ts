import { describe, expect, test } from "bun:test";
import { assignToolNames, TOOL_NAME_PATTERN } from "../../src/catalog/assign-tool-names.ts";
import { buildCatalog } from "../../src/catalog/build-catalog.ts";
import type { RawAction, RawParser } from "../../src/introspection-payload.ts";
import { loadReferenceTree } from "../support/reference-tree.ts";

const reference = await loadReferenceTree();
const catalog = buildCatalog(reference.tree);
const byPath = (path: string) => catalog.commands.find((c) => c.path.join(" ") === path);

describe("the conda 26.7 reference tree", () => {
  test("every terminal command is cataloged and none is raw-only", () => {
    expect(catalog.commands.map((c) => c.path.join(" ")).sort()).toMatchSnapshot();
    expect(catalog.commands.filter((c) => c.status === "raw_only")).toEqual([]);
    expect(catalog.diagnostics.filter((d) => d.level === "warning")).toEqual([]);
  });

  test("the mock activate and deactivate commands are excluded with a reason", () => {
    for (const path of ["activate", "deactivate"]) {
      expect(byPath(path)?.status).toBe("excluded");
      expect(byPath(path)?.toolName).toBeNull();
      expect(byPath(path)?.reason).toContain("shell");
    }
  });

  test("aliases are metadata of the canonical command, not separate tools", () => {
    expect(byPath("remove")?.aliases).toEqual([["uninstall"]]);
    expect(byPath("update")?.aliases).toEqual([["upgrade"]]);
    expect(catalog.commands.some((c) => c.toolName === "conda_uninstall")).toBe(false);
  });

  test("tool names follow the path and are valid MCP names", () => {
    expect(byPath("env config vars set")?.toolName).toBe("conda_env_config_vars_set");
    for (const command of catalog.commands.filter((c) => c.status === "tool")) {
      expect(command.toolName ?? "").toMatch(TOOL_NAME_PATTERN);
    }
  });

  test("options sharing a dest stay separate params keyed by option string", () => {
    const install = byPath("install");
    const shared = install?.params
      .filter((p) => p.dest === "channel_priority")
      .map((p) => p.option);
    expect(shared).toEqual(["--strict-channel-priority", "--no-channel-priority"]);
    const modifiers = install?.params
      .filter((p) => p.dest === "update_modifier")
      .map((p) => p.name);
    expect(modifiers).toEqual([
      "freeze_installed",
      "update_deps",
      "satisfied_skip_solve",
      "update_all",
      "update_specs",
    ]);
    expect(install?.exclusiveGroups).toContainEqual({ members: modifiers ?? [], required: false });
  });

  test("conda's NULL sentinel never becomes a default", () => {
    const nullDests = new Set<string>();
    const walk = (p: RawParser) => {
      for (const a of p.actions)
        if (a.default_is_conda_NULL) nullDests.add(`${p.path.join(" ")}:${a.dest}`);
      p.subcommands.forEach(walk);
    };
    walk(reference.tree);
    expect(nullDests.size).toBeGreaterThan(200);
    for (const command of catalog.commands) {
      for (const param of command.params) {
        if (nullDests.has(`${command.path.join(" ")}:${param.dest}`))
          expect(param.defaultValue).toBeUndefined();
      }
    }
  });

  test("hidden options are counted and left out", () => {
    const install = byPath("install");
    expect(install?.hiddenOptions).toBeGreaterThan(0);
    expect(install?.params.some((p) => p.option === "--debug")).toBe(false);
  });

  test("argparse's required flag on '*' and REMAINDER positionals is not taken literally", () => {
    expect(byPath("install")?.params.find((p) => p.name === "packages")?.required).toBe(false);
    const run = byPath("run")?.params.find((p) => p.name === "executable_call");
    // conda's own run strips the `--` that goes before its command.
    expect(run?.shape).toEqual({
      kind: "passthrough",
      greedy: false,
      separator: true,
      preParser: null,
    });
    expect(run?.required).toBe(false);
    expect(byPath("compare")?.params.find((p) => p.name === "file")?.required).toBe(true);
  });

  test("the same flag keeps its per-command meaning", () => {
    const shapeOf = (path: string) => byPath(path)?.params.find((p) => p.name === "file")?.shape;
    expect(shapeOf("install")).toMatchObject({
      kind: "option",
      repeat: true,
      arity: { kind: "one" },
    });
    expect(shapeOf("env create")).toMatchObject({
      kind: "option",
      repeat: false,
      arity: { kind: "any" },
    });
    expect(shapeOf("env update")).toMatchObject({
      kind: "option",
      repeat: false,
      arity: { kind: "one" },
    });
    expect(byPath("clean")?.params.find((p) => p.option === "--tempfiles")?.shape.kind).toBe(
      "extend_const",
    );
  });
});

describe("parsers that share one action description (as the compact document expands)", () => {
  test("give the catalog that separate copies give", () => {
    // One object per distinct description, as expandDocument leaves the tree.
    const shared = new Map<string, RawAction>();
    const share = (p: RawParser): RawParser => ({
      ...p,
      actions: p.actions.map((a) => {
        const key = JSON.stringify(a);
        const first = shared.get(key) ?? a;
        shared.set(key, first);
        return first;
      }),
      subcommands: p.subcommands.map(share),
    });
    const sharedTree = share(structuredClone(reference.tree));
    let uses = 0;
    const count = (p: RawParser) => {
      uses += p.actions.length;
      p.subcommands.forEach(count);
    };
    count(sharedTree);
    expect(shared.size).toBeLessThan(uses);
    expect(buildCatalog(sharedTree)).toEqual(catalog);
  });

  test("a shared REMAINDER positional keeps each command's own `--` rule", () => {
    const rest = action({ dest: "args", nargs: "...", required: true });
    const preParser = { option_strings: ["--json"], allow_abbrev: true, prefix_chars: "-" };
    const result = buildCatalog(tree([parser(["run"], [rest]), parser(["exec"], [rest])]), {
      preParser,
    });
    const shapeOf = (path: string) =>
      result.commands.find((c) => c.path.join(" ") === path)?.params[0]?.shape;
    expect(shapeOf("run")).toEqual({
      kind: "passthrough",
      greedy: false,
      separator: true,
      preParser: null,
    });
    expect(shapeOf("exec")).toEqual({
      kind: "passthrough",
      greedy: false,
      separator: false,
      preParser,
    });
  });
});

function action(overrides: Partial<RawAction>): RawAction {
  return {
    class: "argparse._StoreAction",
    mro: ["argparse._StoreAction", "argparse.Action", "argparse._AttributeHolder"],
    option_strings: [],
    positional: false,
    dest: "x",
    nargs: null,
    const: null,
    const_repr: "None",
    default: null,
    default_repr: "None",
    default_is_suppress: false,
    default_is_conda_NULL: false,
    type: null,
    type_qualname: null,
    choices: null,
    choices_kind: null,
    required: false,
    help: null,
    help_suppressed: false,
    metavar: null,
    argument_group: null,
    mutually_exclusive_group: null,
    deprecated: null,
    ...overrides,
  };
}

function tree(children: RawParser[]): RawParser {
  return {
    path: [],
    command: "",
    prog: "conda",
    aliases: [],
    help: null,
    description: null,
    greedy: false,
    plugin: null,
    mutually_exclusive_groups: [],
    actions: [],
    subcommands: children,
  };
}

function parser(path: string[], actions: RawAction[], extra: Partial<RawParser> = {}): RawParser {
  return {
    path,
    command: path.join(" "),
    prog: `conda ${path.join(" ")}`,
    aliases: [],
    help: "does things",
    description: null,
    greedy: false,
    plugin: null,
    mutually_exclusive_groups: [],
    actions,
    subcommands: [],
    ...extra,
  };
}

describe("representability", () => {
  test("an unknown action class makes the command raw-only with a diagnostic instead of failing", () => {
    const odd = action({
      class: "plugin.WeirdAction",
      mro: ["plugin.WeirdAction", "argparse.Action"],
      option_strings: ["--weird"],
    });
    const result = buildCatalog(tree([parser(["odd"], [odd]), parser(["fine"], [])]));
    expect(result.commands.map((c) => [c.path[0], c.status, c.toolName])).toEqual([
      ["odd", "raw_only", null],
      ["fine", "tool", "conda_fine"],
    ]);
    expect(result.diagnostics[0]?.message).toContain("plugin.WeirdAction");
  });

  test("a subclass of a known action is understood through its MRO", () => {
    const sub = action({
      class: "plugin.MyStore",
      mro: ["plugin.MyStore", "argparse._StoreAction", "argparse.Action"],
      option_strings: ["--thing"],
    });
    const result = buildCatalog(tree([parser(["cmd"], [sub])]));
    expect(result.commands[0]?.status).toBe("tool");
    expect(result.commands[0]?.params[0]?.shape.kind).toBe("option");
  });

  test("a greedy plugin parser becomes one opaque args array", () => {
    const preParser = { option_strings: ["--json"], allow_abbrev: true, prefix_chars: "-" };
    const result = buildCatalog(tree([parser(["greet"], [], { greedy: true })]), { preParser });
    expect(result.commands[0]?.params.map((p) => [p.name, p.shape])).toEqual([
      ["args", { kind: "passthrough", greedy: true, separator: false, preParser }],
    ]);
  });

  test("conda-mcp's own `conda mcp` plugin command is excluded, with a diagnostic, not served", () => {
    const plugin = { name: "mcp", plugin_name: "conda-mcp", distribution: "conda-mcp" };
    const result = buildCatalog(
      tree([
        parser(["mcp"], [], { greedy: true, plugin }),
        parser(["greet"], [], { greedy: true }),
      ]),
    );
    const mcp = result.commands.find((c) => c.path.join(" ") === "mcp");
    expect(mcp?.status).toBe("excluded");
    expect(mcp?.toolName).toBeNull();
    expect(mcp?.reason).toContain("conda-mcp's own command");
    expect(result.diagnostics).toContainEqual({
      path: ["mcp"],
      level: "info",
      message: expect.stringContaining("conda-mcp itself"),
    });
    expect(result.commands.filter((c) => c.status === "tool").map((c) => c.toolName)).toEqual([
      "conda_greet",
    ]);
  });

  test("a parent with an optional subcommand and options of its own is a command too", () => {
    const sp = action({
      class: "argparse._SubParsersAction",
      mro: ["argparse._SubParsersAction", "argparse.Action"],
      nargs: "A...",
      subparsers: { required: false, dest: null, names: ["clear"] },
    });
    const parent = parser(["tools"], [sp, action({ option_strings: ["--level"], dest: "level" })], {
      subcommands: [parser(["tools", "clear"], [])],
    });
    const result = buildCatalog(tree([parent]));
    expect(result.commands.map((c) => c.toolName)).toEqual(["conda_tools", "conda_tools_clear"]);
  });
});

describe("tool names", () => {
  test("collisions after sanitising are resolved the same way whatever the input order", () => {
    const a = assignToolNames([["foo-bar"], ["foo.bar"], ["foo_bar"]]);
    const b = assignToolNames([["foo_bar"], ["foo.bar"], ["foo-bar"]]);
    expect([...a.entries()].sort()).toEqual([...b.entries()].sort());
    expect(new Set(a.values()).size).toBe(3);
    for (const name of a.values()) expect(name).toMatch(TOOL_NAME_PATTERN);
  });

  test("very long paths are cut to 64 characters and stay unique", () => {
    const long = "x".repeat(80);
    const names = assignToolNames([
      [long, "a"],
      [long, "b"],
    ]);
    const values = [...names.values()];
    expect(new Set(values).size).toBe(2);
    for (const name of values) expect(name).toMatch(TOOL_NAME_PATTERN);
  });
});
