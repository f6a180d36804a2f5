import { describe, expect, test } from "bun:test";
import { buildCatalog } from "../../src/catalog/build-catalog.ts";
import type { CatalogCommand } from "../../src/catalog/catalog-types.ts";
import {
  type ArgvCommandMatch,
  type CatalogLookup,
  classifyArgv,
} from "../../src/policy/classify-argv.ts";
import type { CommandClass } from "../../src/policy/command-class.ts";
import { loadReferenceTree } from "../support/reference-tree.ts";

const reference = await loadReferenceTree();
const catalog = buildCatalog(reference.tree);

/** The longest canonical or alias path of the catalog at the start of the tokens. */
function lookupFrom(
  commands: readonly CatalogCommand[],
  withParams: boolean,
  extra: [string[], ArgvCommandMatch][] = [],
): CatalogLookup {
  const entries: [string[], ArgvCommandMatch][] = [
    ...commands.flatMap((command) =>
      [command.path, ...command.aliases].map((tokens): [string[], ArgvCommandMatch] => [
        tokens,
        {
          path: command.path,
          consumed: tokens.length,
          ...(withParams ? { params: command.params } : {}),
          external: command.plugin?.external ?? false,
        },
      ]),
    ),
    ...extra,
  ];
  return (tokens) => {
    let best: ArgvCommandMatch | null = null;
    for (const [path, match] of entries) {
      const prefix = path.every((word, i) => tokens[i] === word);
      if (prefix && path.length > (best?.consumed ?? 0)) best = match;
    }
    return best;
  };
}

const lookup = lookupFrom(catalog.commands, true);

const cases: [string[], string | null, CommandClass][] = [
  [["install", "numpy"], "install", "write"],
  [["install", "--dry-run", "numpy"], "install", "read"],
  [["install", "numpy", "-d"], "install", "read"],
  [["install", "-dy", "numpy"], "install", "read"],
  [["install", "-yd", "numpy"], "install", "read"],
  [["install", "--dry", "numpy"], "install", "read"],
  // After `--` a `-d` is a package spec, not --dry-run.
  [["install", "--", "-d"], "install", "write"],
  [["install", "-n", "x", "--override-frozen", "numpy"], "install", "destructive"],
  // Global flags before the command, and between the words of its path.
  [["--json", "-v", "remove", "-n", "x", "numpy"], "remove", "destructive"],
  [["-vv", "--no-plugins", "--debug", "--trace", "info"], "info", "read"],
  [["env", "--json", "remove", "-n", "x"], "env remove", "destructive"],
  // Aliases resolve through the catalog to the canonical path.
  [["uninstall", "-n", "x", "numpy"], "remove", "destructive"],
  [["upgrade", "--all"], "update", "write"],
  [["upgrade", "--all", "--dry-run"], "update", "read"],
  // config.
  [["config", "--show"], "config", "read"],
  [["config", "--show", "channels", "--json"], "config", "read"],
  [["config", "--get", "channels", "--no-plugins"], "config", "read"],
  [["config", "--describe"], "config", "read"],
  [["config", "--set", "channel_priority", "strict"], "config", "write"],
  [["config", "--se", "channel_priority", "strict"], "config", "write"],
  [["config", "--add", "channels", "conda-forge"], "config", "write"],
  [["config", "--remove-key", "channels"], "config", "write"],
  [["config", "--stdin"], "config", "write"],
  [["config", "--file", "x.yml", "--append", "channels", "c"], "config", "write"],
  [["config", "--show", "--mystery-option"], "config", "write"],
  // export.
  [["export"], "export", "read"],
  [["export", "-f", "environment.yml"], "export", "write"],
  [["export", "--file=environment.yml"], "export", "write"],
  [["env", "export", "-nfoo", "-f", "x.yml"], "env export", "write"],
  [["env", "export", "-n", "foo"], "env export", "read"],
  // Others.
  [["clean", "--all", "-d"], "clean", "read"],
  [["clean", "-ad"], "clean", "read"],
  [["clean", "-a"], "clean", "destructive"],
  [["package", "-w", "bin/python"], "package", "read"],
  [["package", "-r"], "package", "destructive"],
  [["init", "--dry-run"], "init", "read"],
  [["init", "bash"], "init", "destructive"],
  [["doctor", "--heal"], "doctor", "write"],
  [["env", "create", "-d"], "env create", "read"],
  [["env", "create", "-d", "--yes"], "env create", "write"],
  [["run", "-n", "x", "python", "--dry-run"], "run", "exec"],
  // No command at all: conda only prints usage, help or its version.
  [[], null, "read"],
  [["--version"], null, "read"],
  [["-h"], null, "read"],
  [["--json", "-V"], null, "read"],
  // Anything the catalog does not know is exec.
  [["frobnicate", "--dry-run"], null, "exec"],
  [["--bogus", "info"], null, "exec"],
  [["--", "info"], null, "exec"],
  [["env"], null, "exec"],
];

describe("classifyArgv with the catalog's params", () => {
  test.each(cases)("%j names %p and is %s", (argv, path, cls) => {
    const result = classifyArgv(argv, lookup);
    expect(result.path?.join(" ") ?? null).toBe(path);
    expect(result.cls).toBe(cls);
  });

  test("arguments come back keyed like tool arguments, for the guards", () => {
    expect(classifyArgv(["remove", "--all", "-n", "base", "-y"], lookup).args).toEqual({
      all: true,
      name: "base",
      yes: true,
    });
    expect(classifyArgv(["rename", "-p=/envs/a", "b"], lookup).args).toEqual({
      prefix: "/envs/a",
      destination: "b",
    });
    expect(
      classifyArgv(["install", "-vv", "--channel", "c1", "-c", "c2", "a", "b"], lookup).args,
    ).toEqual({
      verbose: 2,
      channel: ["c1", "c2"],
      packages: ["a", "b"],
    });
    expect(
      classifyArgv(["config", "--set", "a", "1", "--set", "b", "2", "--show"], lookup).args,
    ).toEqual({
      set: [
        ["a", "1"],
        ["b", "2"],
      ],
      show: [],
    });
    expect(classifyArgv(["install", "--no-repodata-use-zst", "x"], lookup).args).toEqual({
      repodata_use_zst: false,
      packages: ["x"],
    });
  });

  test("a REMAINDER positional keeps everything after the program, options included", () => {
    const result = classifyArgv(
      ["run", "-n", "x", "python", "-c", "print(1)", "--dry-run"],
      lookup,
    );
    expect(result.args).toEqual({
      name: "x",
      executable_call: ["python", "-c", "print(1)", "--dry-run"],
    });
  });

  test("conda's hidden options are reported as unknown and still recorded", () => {
    const result = classifyArgv(["create", "-n", "x", "--force", "python"], lookup);
    expect(result.unknownOptions).toEqual(["--force"]);
    expect(result.args).toMatchObject({ name: "x", force: true });
  });

  test("commands from external plugins are exec, even with a dry run", () => {
    const plugin = lookupFrom(catalog.commands, true, [
      [["greet"], { path: ["greet"], consumed: 1, external: true, params: [] }],
    ]);
    expect(classifyArgv(["greet", "--dry-run"], plugin).cls).toBe("exec");
  });
});

describe("classifyArgv without params falls back to conda's common options", () => {
  const bare = lookupFrom(catalog.commands, false);
  const fallbackCases: [string[], CommandClass][] = [
    [["install", "-dy", "numpy"], "read"],
    [["install", "--dry-run", "numpy"], "read"],
    [["install", "numpy"], "write"],
    // `clean -p` is a flag, read here as --prefix: the -d after it is lost, never invented.
    [["clean", "-pd"], "destructive"],
    [["config", "--set", "a", "b"], "write"],
    [["config", "--show"], "read"],
    [["export", "-f", "x.yml"], "write"],
  ];

  test.each(fallbackCases)("%j is %s", (argv, cls) => {
    expect(classifyArgv(argv, bare).cls).toBe(cls);
  });

  test("name, prefix, --all and rename's destination are still recovered", () => {
    expect(classifyArgv(["remove", "--all", "-n", "base"], bare).args).toMatchObject({
      all: true,
      name: "base",
    });
    expect(classifyArgv(["rename", "-n", "a", "--json", "b"], bare).args).toMatchObject({
      name: "a",
      destination: "b",
    });
  });
});
