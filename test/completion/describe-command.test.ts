import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { CompletionManifest } from "../../src/completion/completion-manifest.ts";
import { type CommandDescription, describeCommand } from "../../src/completion/describe-command.ts";
import { readManifest } from "../../src/completion/read-manifest.ts";
import {
  EXAMPLE_PLUGIN_HASH,
  exampleManifest,
  makeTempDir,
  writeManifestFile,
} from "./manifest-fixture.ts";

let dir: string;
let cleanup: () => Promise<void>;
let counter = 0;
let example: CompletionManifest;

/** Packs a manifest value to a real file and reads it back the way the tool does. */
async function load(content: unknown): Promise<CompletionManifest> {
  counter += 1;
  const here = join(dir, `case-${counter}`);
  await mkdir(here);
  const result = await readManifest(await writeManifestFile(here, content));
  if (result.state !== "ok") throw new Error(`fixture did not load: ${JSON.stringify(result)}`);
  return result.manifest;
}

function described(
  manifest: CompletionManifest,
  path: string[],
  currentPluginHash: string | null = EXAMPLE_PLUGIN_HASH,
): CommandDescription {
  const result = describeCommand(manifest, path, { currentPluginHash });
  if ("error" in result) throw new Error(`expected a description of ${path.join(" ")}`);
  return result;
}

beforeAll(async () => {
  ({ dir, cleanup } = await makeTempDir());
  example = await load(await exampleManifest());
});
afterAll(async () => {
  await cleanup();
});

describe("describeCommand on the reference manifest", () => {
  test("the root lists root options and top-level commands with summaries only", () => {
    const root = described(example, []);
    expect(root.command_path).toEqual([]);
    expect(root.summary).toBeUndefined();
    expect(Object.keys(root.options)).toEqual(["--version", "--verbose", "--json", "--no-plugins"]);
    expect(root.options["--version"]).toEqual({
      short: "-V",
      nargs: "0",
      description: "Show the conda version number and exit.",
    });
    expect(root.positionals).toEqual([]);
    expect(root.subcommands).toEqual([
      {
        name: "install",
        summary: "Install a list of packages into a specified conda environment.",
      },
      { name: "env", summary: "Create and manage conda environments." },
      { name: "config", summary: "Modify configuration values in .condarc." },
      { name: "exec", summary: "Run a tool in a cached, temporary environment." },
    ]);
    expect(root.exclusive_groups).toEqual([]);
    expect(root.runtime_sources).toEqual({});
    expect(root.aliases).toEqual([]);
  });

  test("a command gives options as in the manifest, positionals and exclusive groups", () => {
    const install = described(example, ["install"]);
    expect(install.command_path).toEqual(["install"]);
    expect(install.summary).toBe("Install a list of packages into a specified conda environment.");
    expect(Object.keys(install.options)).toEqual([
      "--name",
      "--prefix",
      "--channel",
      "--override-channels",
      "--dry-run",
      "--solver",
    ]);
    expect(install.options["--override-channels"]).toEqual({
      nargs: "0",
      description: "Do not search default or .condarc channels.",
      default: "False",
      group: "Channel Customization",
    });
    expect(install.options["--solver"]?.choices).toEqual(["classic", "libmamba"]);
    expect(install.positionals).toEqual([
      {
        name: "packages",
        nargs: "*",
        completion_type: "package_spec",
        description: "List of packages to install or update in the conda environment.",
        metavar: "package_spec",
      },
    ]);
    expect(install.exclusive_groups).toEqual([["-n", "-p"]]);
    expect(install.subcommands).toEqual([]);
    // Built-in completion types are not runtime sources.
    expect(install.runtime_sources).toEqual({});
  });

  test("a command with subcommands lists its direct children, never their subtrees", () => {
    const env = described(example, ["env"]);
    expect(env.subcommands).toEqual([
      { name: "list", summary: "List the Conda environments." },
      { name: "remove", summary: "Remove an environment." },
    ]);
    expect(JSON.stringify(env.subcommands)).not.toContain("--yes");
    expect(env.options).toEqual({});
  });

  test("a nested command is found by its full path", () => {
    const remove = described(example, ["env", "remove"]);
    expect(remove.command_path).toEqual(["env", "remove"]);
    expect(remove.summary).toBe("Remove an environment.");
    expect(Object.keys(remove.options)).toEqual(["--name", "--prefix", "--yes"]);
    expect(remove.exclusive_groups).toEqual([["-n", "-p"]]);
  });

  test("completion rules are kept and only the runtime sources they name are returned", () => {
    const exec = described(example, ["exec"]);
    expect(exec.positionals[0]).toEqual({
      name: "tool",
      completion: {
        sources: ["cached_tool", "package_spec"],
        rules: [
          { sources: ["cached_tool"], when_options: ["--clean"] },
          { sources: ["file"], when_options: ["--lock"] },
        ],
      },
      description: "Tool or package spec to run.",
    });
    expect(exec.positionals[1]).toEqual({
      name: "args",
      nargs: "...",
      description: "Arguments passed to the tool.",
    });
    expect(exec.runtime_sources).toEqual({
      cached_tool: {
        kind: "directory_entries",
        description: "cached tool",
        group: "tool",
        env_var: "CONDA_EXEC_HOME",
        env_suffix: ["envs"],
        home_suffix: [".conda", "exec", "envs"],
        entry_type: "directory",
        strip_suffix: "--",
        max_entries: 10000,
      },
    });
  });

  test("the executable aliases whose target is the command are listed", () => {
    expect(described(example, ["exec"]).aliases).toEqual([{ name: "cx" }]);
    expect(described(example, ["install"]).aliases).toEqual([]);
  });

  test("a path that starts with an executable alias is resolved and says so", () => {
    const viaAlias = described(example, ["cx"]);
    expect(viaAlias.alias_resolution).toEqual({ alias: "cx", target: ["exec"] });
    const direct = described(example, ["exec"]);
    expect(viaAlias.command_path).toEqual(["exec"]);
    expect({ ...viaAlias, alias_resolution: undefined }).toEqual({
      ...direct,
      alias_resolution: undefined,
    });
    expect(direct.alias_resolution).toBeUndefined();
  });

  test.each([
    ["fresh", EXAMPLE_PLUGIN_HASH, false],
    ["stale", "0000000000000000", true],
    ["unknown current hash", null, null],
  ] as const)("manifest metadata and staleness: %s", (_title, current, stale) => {
    const result = described(example, ["install"], current);
    expect(result.manifest).toEqual({
      version: 1,
      generated_at: "2026-09-20T12:00:00.000000+00:00",
      plugin_hash: EXAMPLE_PLUGIN_HASH,
    });
    expect(result.stale).toBe(stale);
  });

  test.each([
    [["nope"]],
    [["install", "extra"]],
    [["env", "nope"]],
    [["cx", "nope"]],
    [["__proto__"]],
    [["constructor"]],
    [["toString"]],
    [["hasOwnProperty"]],
    [["env", "__proto__"]],
    [["env", "constructor"]],
    [["cx", "constructor"]],
  ])("%j is unknown_command and the answer does not echo the path", (path) => {
    const result = describeCommand(example, path, { currentPluginHash: EXAMPLE_PLUGIN_HASH });
    expect(result).toEqual({ error: "unknown_command" });
  });

  test("no description ever carries package_names or a package from it", () => {
    const paths = [
      [],
      ["install"],
      ["env"],
      ["env", "remove"],
      ["env", "list"],
      ["config"],
      ["exec"],
      ["cx"],
    ];
    for (const path of paths) {
      const serialized = JSON.stringify(described(example, path));
      expect(serialized).not.toContain("package_names");
      expect(serialized).not.toContain("scipy");
      expect(serialized).not.toContain("pandas");
    }
  });
});

describe("describeCommand on variants", () => {
  test("a runtime source named by an option's completion_type is returned", async () => {
    const manifest = await exampleManifest();
    const commands = manifest.commands as Record<string, Record<string, unknown>>;
    const exec = commands.exec as { options: Record<string, Record<string, unknown>> };
    (exec.options["--lock"] as Record<string, unknown>).completion_type = "lock_files";
    (manifest.runtime_sources as Record<string, unknown>).lock_files = {
      kind: "directory_entries",
    };
    (manifest.runtime_sources as Record<string, unknown>).unused = { kind: "directory_entries" };
    const result = described(await load(manifest), ["exec"]);
    expect(Object.keys(result.runtime_sources)).toEqual(["lock_files", "cached_tool"]);
  });

  test("a real command wins over an executable alias of the same name", async () => {
    const manifest = await exampleManifest();
    (manifest.commands as Record<string, unknown>).cx = { summary: "A real cx command." };
    const result = described(await load(manifest), ["cx"]);
    expect(result.alias_resolution).toBeUndefined();
    expect(result.summary).toBe("A real cx command.");
  });

  test("an alias can lead into a nested command and keeps its description", async () => {
    const manifest = await exampleManifest();
    (manifest.aliases as Record<string, unknown>).cenv = {
      target: ["env"],
      description: "env shortcut",
    };
    const result = described(await load(manifest), ["cenv", "remove"]);
    expect(result.command_path).toEqual(["env", "remove"]);
    expect(result.alias_resolution).toEqual({
      alias: "cenv",
      target: ["env"],
      description: "env shortcut",
    });
    expect(described(await load(manifest), ["env"]).aliases).toEqual([
      { name: "cenv", description: "env shortcut" },
    ]);
  });

  test("a manifest from before 0.3 (no aliases, no runtime sources) still describes commands", async () => {
    const manifest = await exampleManifest();
    delete manifest.aliases;
    delete manifest.runtime_sources;
    const loaded = await load(manifest);
    expect(described(loaded, ["exec"]).runtime_sources).toEqual({});
    expect(describeCommand(loaded, ["cx"], { currentPluginHash: null })).toEqual({
      error: "unknown_command",
    });
  });
});

describe("describeCommand with hostile names in the manifest", () => {
  const HOSTILE_OPTION = new Map<string, unknown>([
    ["description", "an option called __proto__"],
    ["polluted", "yes"],
  ]);
  const hostileOptions = () =>
    new Map<string, unknown>([
      ["__proto__", HOSTILE_OPTION],
      ["constructor", new Map([["description", "an option called constructor"]])],
      ["prototype", new Map([["description", "an option called prototype"]])],
    ]);
  const hostileCommand = (summary: string) =>
    new Map<string, unknown>([
      ["summary", summary],
      ["options", hostileOptions()],
      [
        "subcommands",
        new Map([
          [
            "__proto__",
            new Map<string, unknown>([
              ["summary", "nested __proto__"],
              ["polluted", true],
            ]),
          ],
        ]),
      ],
    ]);
  const hostileManifest = () =>
    new Map<string, unknown>([
      ["version", 1],
      ["__proto__", new Map([["polluted", true]])],
      ["root_options", hostileOptions()],
      [
        "commands",
        new Map<string, unknown>([
          ["__proto__", hostileCommand("a command called __proto__")],
          ["constructor", hostileCommand("a command called constructor")],
          ["prototype", hostileCommand("a command called prototype")],
          ["toString", hostileCommand("a command called toString")],
        ]),
      ],
      ["aliases", new Map([["hasOwnProperty", new Map([["target", ["constructor"]]])]])],
      [
        "runtime_sources",
        new Map([
          [
            "__proto__",
            new Map<string, unknown>([
              ["kind", "directory_entries"],
              ["polluted", true],
            ]),
          ],
        ]),
      ],
    ]);

  test("nothing reaches Object.prototype and the names are ordinary own keys", async () => {
    const manifest = await load(hostileManifest());
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
    expect(Object.getPrototypeOf(manifest.commands)).toBeNull();
    expect(Object.keys(manifest.commands)).toEqual([
      "__proto__",
      "constructor",
      "prototype",
      "toString",
    ]);

    const proto = described(manifest, ["__proto__"]);
    expect(proto.summary).toBe("a command called __proto__");
    expect(Object.keys(proto.options)).toEqual(["__proto__", "constructor", "prototype"]);
    expect(Object.hasOwn(proto.options, "__proto__")).toBe(true);
    // The output object keeps its ordinary prototype; "__proto__" is only an own key.
    expect(Object.getPrototypeOf(proto.options)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(proto.options))).toEqual(
      JSON.parse(
        '{"__proto__":{"description":"an option called __proto__"},' +
          '"constructor":{"description":"an option called constructor"},' +
          '"prototype":{"description":"an option called prototype"}}',
      ),
    );
    expect(proto.subcommands).toEqual([{ name: "__proto__", summary: "nested __proto__" }]);
    expect(described(manifest, ["__proto__", "__proto__"]).summary).toBe("nested __proto__");
    expect(described(manifest, ["constructor"]).summary).toBe("a command called constructor");
    expect(described(manifest, ["toString"]).summary).toBe("a command called toString");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test("an alias named after an Object.prototype method resolves as an ordinary name", async () => {
    const manifest = await load(hostileManifest());
    const result = described(manifest, ["hasOwnProperty"]);
    expect(result.alias_resolution).toEqual({ alias: "hasOwnProperty", target: ["constructor"] });
    expect(described(manifest, ["constructor"]).aliases).toEqual([{ name: "hasOwnProperty" }]);
  });

  test("names that are not in the manifest are unknown, not inherited", async () => {
    const manifest = await load(hostileManifest());
    for (const path of [["valueOf"], ["__defineGetter__"], ["constructor", "constructor"]]) {
      expect(describeCommand(manifest, path, { currentPluginHash: null })).toEqual({
        error: "unknown_command",
      });
    }
  });

  test("a runtime source called __proto__ is not returned unless referenced", async () => {
    const manifest = await load(hostileManifest());
    expect(described(manifest, ["__proto__"]).runtime_sources).toEqual({});
    expect(Object.keys(manifest.runtime_sources)).toEqual(["__proto__"]);
  });
});
