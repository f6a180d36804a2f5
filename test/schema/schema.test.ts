import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import * as v from "valibot";
import { buildCatalog } from "../../src/catalog/build-catalog.ts";
import type { CatalogCommand, Param } from "../../src/catalog/catalog-types.ts";
import { runProcess } from "../../src/execute/run-process.ts";
import { buildArgv } from "../../src/schema/build-argv.ts";
import {
  advertisedJsonSchema,
  MAX_STRING_LENGTH,
  wellFormedString,
} from "../../src/schema/build-input-schema.ts";
import { settingPartners } from "../../src/schema/setting-partners.ts";
import { MAX_ARGV_BYTES, validateArgs } from "../../src/schema/validate-args.ts";
import { buildInputSchema } from "../support/build-input-schema.ts";
import { loadReferenceTree } from "../support/reference-tree.ts";

const catalog = buildCatalog((await loadReferenceTree()).tree);
const tools = catalog.commands.filter((c) => c.status === "tool");
const command = (path: string) =>
  catalog.commands.find((c) => c.path.join(" ") === path) as CatalogCommand;

function argvFor(path: string, args: Record<string, unknown>): string[] {
  const cmd = command(path);
  const result = validateArgs(cmd, buildInputSchema(cmd), args);
  if (!result.success) throw new Error(JSON.stringify(result.issues));
  return buildArgv(cmd, result.output);
}

function issuesFor(path: string, args: unknown) {
  const cmd = command(path);
  const result = validateArgs(cmd, buildInputSchema(cmd), args);
  return result.success ? [] : result.issues;
}

/** Arguments that give two params, each with a plain valid value. */
function bothGiven(a: Param, b: Param): Record<string, unknown> {
  const value = (p: Param) => {
    const shape = p.shape;
    if (shape.kind !== "option") return true;
    return shape.value.choices?.[0] ?? "x";
  };
  return { [a.name]: value(a), [b.name]: value(b) };
}

describe("args → argv", () => {
  test.each([
    ["info", {}, ["info"]],
    ["info", { json: true, verbose: 3 }, ["info", "--json", "--verbose", "--verbose", "--verbose"]],
    ["info", { json: false, verbose: 0 }, ["info"]],
    [
      "install",
      { name: "-odd", packages: ["numpy", "scipy>=1"] },
      ["install", "--name=-odd", "numpy", "scipy>=1"],
    ],
    [
      "install",
      { channel: ["conda-forge", "a=b"] },
      ["install", "--channel=conda-forge", "--channel=a=b"],
    ],
    ["install", { strict_channel_priority: true }, ["install", "--strict-channel-priority"]],
    ["install", { revision: 3 }, ["install", "--revision=3"]],
    ["install", { repodata_use_zst: false }, ["install", "--no-repodata-use-zst"]],
    ["install", { repodata_use_zst: true }, ["install", "--repodata-use-zst"]],
    [
      "config",
      { set: [["channel_priority", "strict"]] },
      ["config", "--set", "channel_priority", "strict"],
    ],
    ["config", { show: [] }, ["config", "--show"]],
    [
      "config",
      { show: ["channels"], file: "x.yml" },
      ["config", "--show", "channels", "--file=x.yml"],
    ],
    ["clean", { tempfiles: [] }, ["clean", "--tempfiles"]],
    [
      "clean",
      { tempfiles: ["/opt/env"], all: true },
      ["clean", "--tempfiles", "/opt/env", "--all"],
    ],
    [
      "env create",
      { file: ["a.yml", "b.yml"], name: "x" },
      ["env", "create", "--file", "a.yml", "b.yml", "--name=x"],
    ],
    ["init", { shells: ["bash", "zsh"], dry_run: true }, ["init", "--dry-run", "bash", "zsh"]],
    [
      "run",
      { name: "base", executable_call: ["python", "-c", "print(1)", "--json"] },
      // After the `--` (which conda's run strips), conda's pre-parser cannot take `--json`.
      ["run", "--name=base", "--", "python", "-c", "print(1)", "--json"],
    ],
    [
      "env config vars set",
      { vars: ["A=1", "B=2"] },
      ["env", "config", "vars", "set", "A=1", "B=2"],
    ],
    ["list", { regex: "^py" }, ["list", "^py"]],
  ])("%s %j → %j", (path, args, expected) => {
    expect(argvFor(path, args)).toEqual(expected);
  });

  test("an open-ended option right before positionals is ended by --", () => {
    const cmd: CatalogCommand = {
      ...command("install"),
      params: [
        {
          name: "extra",
          dest: "extra",
          option: "--extra",
          optionStrings: ["--extra"],
          shape: {
            kind: "option",
            arity: { kind: "any" },
            repeat: false,
            value: { type: "string", choices: null },
          },
          required: false,
          description: "",
          deprecated: null,
          exclusiveGroup: null,
        },
        ...command("install").params.filter((p) => p.name === "packages"),
      ],
      exclusiveGroups: [],
    };
    expect(buildArgv(cmd, { extra: ["a"], packages: ["numpy"] })).toEqual([
      "install",
      "--extra",
      "a",
      "--",
      "numpy",
    ]);
  });
});

describe("validation errors", () => {
  test("name the JSON path and the expectation, never the value", () => {
    const secret = "-SECRET-VALUE";
    const issues = issuesFor("install", {
      packages: ["ok", secret],
      channel: "not-an-array",
      bogus_key: secret,
    });
    expect(issues).toEqual([
      { path: "/channel", message: "expected an array" },
      {
        path: "/packages/1",
        message:
          "expected a string that does not start with '-', without NUL or unpaired surrogates",
      },
      { path: "/bogus_key", message: "unknown property" },
    ]);
    expect(JSON.stringify(issues)).not.toContain("SECRET");
  });

  test.each([
    ["install", { name: "a", prefix: "b" }, "/prefix", "expected at most one of name, prefix"],
    [
      "install",
      { strict_channel_priority: true, no_channel_priority: true },
      "/no_channel_priority",
      "expected at most one of strict_channel_priority, no_channel_priority (they set the same conda setting)",
    ],
    ["install", { verbose: -1 }, "/verbose", "expected a non-negative integer"],
    ["install", { revision: 1.5 }, "/revision", "expected an integer"],
    ["install", { solver: "nope" }, "/solver", 'expected one of "classic"'],
    [
      "install",
      { name: "a\u0000b" },
      "/name",
      "expected a string other than '--', without NUL or unpaired surrogates",
    ],
    [
      "install",
      { name: "--" },
      "/name",
      "expected a string other than '--', without NUL or unpaired surrogates",
    ],
    ["config", { set: [["only-one"]] }, "/set/0", "expected exactly 2 values"],
    ["compare", {}, "/file", "required"],
    [
      "run",
      { executable_call: ["--json"] },
      "/executable_call/0",
      "expected a value that does not start with '-'",
    ],
  ])("%s %j is refused at %s", (path, args, where, message) => {
    expect(issuesFor(path, args)).toContainEqual({ path: where, message });
  });

  test("options sharing a dest inside an exclusive group are reported once", () => {
    expect(issuesFor("install", { freeze_installed: true, update_all: true })).toEqual([
      {
        path: "/update_all",
        message:
          "expected at most one of freeze_installed, update_deps, satisfied_skip_solve, update_all, update_specs",
      },
    ]);
  });

  test("options that add to one shared list combine", () => {
    expect(
      issuesFor("install", { channel: ["a"], use_local: true, override_channels: true }),
    ).toEqual([]);
  });

  test("every pair of options the server refuses together is named in both descriptions", () => {
    const pairs: string[] = [];
    for (const tool of tools) {
      const properties = buildInputSchema(tool).jsonSchema.properties as Record<
        string,
        { description?: string }
      >;
      for (const param of tool.params) {
        for (const other of settingPartners(tool, param)) {
          pairs.push(`${tool.toolName}: ${param.name} + ${other.name}`);
          expect(issuesFor(tool.path.join(" "), bothGiven(param, other))).not.toEqual([]);
          expect(properties[param.name]?.description).toContain(other.name);
        }
      }
    }
    // The three conda 26.7 has outside exclusive groups, each seen from both sides.
    expect(pairs).toEqual(
      expect.arrayContaining([
        "conda_install: strict_channel_priority + no_channel_priority",
        "conda_install: no_channel_priority + strict_channel_priority",
        "conda_env_create: environment_specifier + format",
        "conda_init: user + no_user",
      ]),
    );
  });

  test("string limits count code points, as JSON Schema does, and every accepted value can be spawned", async () => {
    const longest = "😀".repeat(MAX_STRING_LENGTH);
    const schema = buildInputSchema(command("create")).jsonSchema.properties.name as {
      maxLength?: number;
    };
    expect(schema.maxLength).toBe(MAX_STRING_LENGTH);
    expect(issuesFor("create", { name: longest })).toEqual([]);
    expect(issuesFor("create", { name: `${longest}x` })).toEqual([
      { path: "/name", message: `expected a string of at most ${MAX_STRING_LENGTH} characters` },
    ]);
    const token = argvFor("create", { name: longest }).at(-1) ?? "";
    // Four bytes a code point stay under the 128 KiB a single argument may have on Linux.
    const run = await runProcess(
      {
        command: join(import.meta.dir, "..", "fixtures", "bin", "echo-argv"),
        argv: [token],
        env: {},
      },
      { platform: process.platform, timeoutMs: 30_000, maxOutputBytes: 1024 * 1024 },
    );
    expect(run.exit_code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([token]);
  });

  test("a call's whole command line is capped, at the root, as the instructions state", () => {
    // 40 packages of 32000 ASCII characters pass every per-value bound but make 1.28 MB of argv.
    const packages = Array.from({ length: 40 }, (_, i) => `${i}`.padEnd(MAX_STRING_LENGTH, "x"));
    expect(issuesFor("install", { packages: packages.slice(0, 30) })).toEqual([]);
    expect(issuesFor("install", { packages })).toEqual([
      { path: "/", message: `expected arguments of at most ${MAX_ARGV_BYTES} bytes in all` },
    ]);
  });

  test("a non-object input is refused at the root", () => {
    expect(issuesFor("info", [1, 2])).toEqual([{ path: "/", message: "expected an object" }]);
  });
});

describe("client-safe JSON Schema", () => {
  test("every tool's schema is a plain object schema with no root combinators or refs", () => {
    for (const cmd of tools) {
      const { jsonSchema } = buildInputSchema(cmd);
      expect(jsonSchema.type).toBe("object");
      expect(jsonSchema.additionalProperties).toBe(false);
      for (const key of ["oneOf", "anyOf", "allOf", "$ref", "$defs", "definitions", "$schema"]) {
        expect(jsonSchema).not.toHaveProperty(key);
      }
      const text = JSON.stringify(jsonSchema);
      expect(text).not.toContain("$ref");
      expect(text).not.toContain("NULL");
      expect(text).not.toContain("==SUPPRESS==");
    }
  });

  test("a string advertises the bound it is held to, and only a bound in code points", () => {
    expect(advertisedJsonSchema(wellFormedString(4096, "a path"))).toMatchObject({
      maxLength: 4096,
    });
    expect(advertisedJsonSchema(wellFormedString(MAX_STRING_LENGTH, "a string"))).toMatchObject({
      maxLength: MAX_STRING_LENGTH,
    });
    // valibot's maxLength counts UTF-16 code units: advertised, it would claim 2x too many emoji.
    expect(() => advertisedJsonSchema(v.pipe(v.string(), v.maxLength(10)))).toThrow(
      "v.maxCodePoints",
    );
  });

  test("representative schemas stay as reviewed, at both details", () => {
    for (const path of ["info", "install", "config", "env config vars set", "run", "clean"]) {
      expect(buildInputSchema(command(path), "full").jsonSchema).toMatchSnapshot(path);
      expect(buildInputSchema(command(path), "compact").jsonSchema).toMatchSnapshot(
        `${path} (compact)`,
      );
    }
  });
});
