import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type Tool, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import {
  CLI_COMMAND_INPUT_SCHEMA,
  CLI_COMMAND_OUTPUT_SCHEMA,
  CLI_COMMAND_TOOL_DESCRIPTION,
  CLI_COMMAND_TOOL_NAME,
  type CliCommandContext,
  type CliCommandOutcome,
  cliCommandTool,
} from "../../src/completion/cli-command-tool.ts";
import { createManifestReader } from "../../src/completion/create-manifest-reader.ts";
import { type ManifestReadResult, readManifest } from "../../src/completion/read-manifest.ts";
import {
  EXAMPLE_PLUGIN_HASH,
  exampleManifest,
  makeTempDir,
  writeManifestFile,
} from "./manifest-fixture.ts";

// The validator the MCP SDK's client applies to structuredContent and arguments.
const validator = new AjvJsonSchemaValidator();
const validateOutput = validator.getValidator(
  CLI_COMMAND_OUTPUT_SCHEMA as unknown as Parameters<typeof validator.getValidator>[0],
);
const validateInput = validator.getValidator(
  CLI_COMMAND_INPUT_SCHEMA as unknown as Parameters<typeof validator.getValidator>[0],
);

let dir: string;
let cleanup: () => Promise<void>;
let counter = 0;
let examplePath: string;

async function caseDir(): Promise<string> {
  counter += 1;
  const path = join(dir, `case-${counter}`);
  await mkdir(path);
  return path;
}

function context(overrides: Partial<CliCommandContext> = {}): CliCommandContext {
  return {
    manifestPath: examplePath,
    installedVersion: "0.3.2",
    currentPluginHash: EXAMPLE_PLUGIN_HASH,
    ...overrides,
  };
}

/** Asserts the outcome is a structured result that the SDK would accept, and returns it. */
function structured(outcome: CliCommandOutcome) {
  if ("error" in outcome) throw new Error(`expected a structured result: ${outcome.message}`);
  const check = validateOutput(JSON.parse(JSON.stringify(outcome)));
  expect(check.errorMessage).toBeUndefined();
  expect(check.valid).toBe(true);
  return outcome;
}

beforeAll(async () => {
  ({ dir, cleanup } = await makeTempDir());
  examplePath = await writeManifestFile(await caseDir(), await exampleManifest());
});
afterAll(async () => {
  await cleanup();
});

describe("conda_cli_command availability", () => {
  test("describes a command from an installed 0.3 manifest", async () => {
    const out = structured(await cliCommandTool(context(), { command_path: ["env", "remove"] }));
    expect(out.availability).toBe("available");
    if (out.availability !== "available") return;
    expect(out.installed_version).toBe("0.3.2");
    expect(out.command_path).toEqual(["env", "remove"]);
    expect(Object.keys(out.options)).toEqual(["--name", "--prefix", "--yes"]);
    expect(out.stale).toBe(false);
    expect(out.hint).toBeUndefined();
  });

  test("no arguments at all describe conda itself", async () => {
    for (const input of [undefined, {}, { command_path: [] }]) {
      const out = structured(await cliCommandTool(context(), input));
      if (out.availability !== "available") throw new Error("expected available");
      expect(out.command_path).toEqual([]);
      expect(out.subcommands.map((s) => s.name)).toEqual(["install", "env", "config", "exec"]);
    }
  });

  test("an alias path is resolved and reported", async () => {
    const out = structured(await cliCommandTool(context(), { command_path: ["cx"] }));
    if (out.availability !== "available") throw new Error("expected available");
    expect(out.alias_resolution).toEqual({ alias: "cx", target: ["exec"] });
    expect(Object.keys(out.runtime_sources)).toEqual(["cached_tool"]);
  });

  test("a stale manifest is described with a hint to regenerate", async () => {
    const out = structured(
      await cliCommandTool(context({ currentPluginHash: "ffffffffffffffff" }), {
        command_path: ["install"],
      }),
    );
    if (out.availability !== "available") throw new Error("expected available");
    expect(out.stale).toBe(true);
    expect(out.hint).toContain("conda completion generate");
  });

  test("not installed: says so with an install hint and reads no file", async () => {
    const reads: string[] = [];
    const out = structured(
      await cliCommandTool(
        context({
          installedVersion: null,
          readManifest: (path) => {
            reads.push(path);
            return readManifest(path);
          },
        }),
        { command_path: ["install"] },
      ),
    );
    expect(out).toEqual({ availability: "not_installed", hint: expect.any(String) });
    expect(out.hint).toContain("conda-completion 0.3");
    expect(reads).toEqual([]);
  });

  test.each([
    ["0.3", "available"],
    ["0.3.0", "available"],
    ["0.3.2", "available"],
    ["1.0.0rc1", "available"],
    ["0.3.post1", "available"],
    ["0.2.9", "unavailable"],
    ["0.2.1", "unavailable"],
    ["0.1.0", "unavailable"],
    ["0.3.0rc1", "unavailable"],
    ["not a version", "unavailable"],
  ] as const)("installed version %s is %s, whatever the file says", async (version, expected) => {
    // The file is a perfectly valid manifest with version key 1, as 0.2 also wrote.
    const out = structured(
      await cliCommandTool(context({ installedVersion: version }), { command_path: ["install"] }),
    );
    expect(out.availability).toBe(expected);
    if (out.availability === "unavailable") {
      expect(out.reason).toBeString();
      expect(out.hint).toContain("0.3");
      expect(out.installed_version).toBe(version);
    }
  });

  test("a missing manifest is not_generated with a hint to generate it", async () => {
    const out = structured(
      await cliCommandTool(context({ manifestPath: join(await caseDir(), "completion.msgpack") }), {
        command_path: ["install"],
      }),
    );
    expect(out).toEqual({
      availability: "not_generated",
      hint: expect.stringContaining("conda completion generate"),
      installed_version: "0.3.2",
    });
  });

  test.each([
    ["truncated", (bytes: Uint8Array) => bytes.subarray(0, bytes.length - 10), "truncated"],
    ["garbage", () => new TextEncoder().encode("\u0000garbage bytes"), "not valid msgpack"],
  ])("a %s file is unavailable with a reason and no server path", async (_t, mangle, reason) => {
    const { pack } = await import("msgpackr/pack");
    const path = await writeManifestFile(await caseDir(), mangle(pack(await exampleManifest())));
    const out = structured(await cliCommandTool(context({ manifestPath: path }), {}));
    expect(out.availability).toBe("unavailable");
    if (out.availability !== "unavailable") return;
    expect(out.reason).toContain(reason);
    expect(out.hint).toContain("conda completion generate");
    expect(JSON.stringify(out)).not.toContain(dir);
  });

  test("a command, option and subcommand called constructor, __proto__ or prototype are described", async () => {
    const manifest = await exampleManifest();
    manifest.commands = {
      ...(manifest.commands as object),
      constructor: {
        summary: "A command called constructor.",
        options: {
          constructor: { description: "An option called constructor." },
          // A computed key is an own property; a literal __proto__ would set the prototype.
          ["__proto__"]: { description: "An option called __proto__." },
        },
        subcommands: { prototype: { summary: "A subcommand called prototype." } },
      },
    };
    const path = await writeManifestFile(await caseDir(), manifest);
    const out = structured(
      await cliCommandTool(context({ manifestPath: path }), { command_path: ["constructor"] }),
    );
    if (out.availability !== "available") throw new Error("expected available");
    expect(out.summary).toBe("A command called constructor.");
    expect(Object.keys(out.options)).toEqual(["constructor", "__proto__"]);
    expect(out.subcommands).toEqual([
      { name: "prototype", summary: "A subcommand called prototype." },
    ]);
    const nested = structured(
      await cliCommandTool(context({ manifestPath: path }), {
        command_path: ["constructor", "prototype"],
      }),
    );
    if (nested.availability !== "available") throw new Error("expected available");
    expect(nested.summary).toBe("A subcommand called prototype.");
  });

  test("an oversized file is unavailable", async () => {
    const out = structured(
      await cliCommandTool(
        context({ readManifest: (path) => readManifest(path, { maxBytes: 100 }) }),
        {},
      ),
    );
    expect(out.availability).toBe("unavailable");
    if (out.availability === "unavailable") expect(out.reason).toContain("larger than 100 bytes");
  });
});

describe("conda_cli_command arguments", () => {
  const BAD_INPUTS: [title: string, input: unknown][] = [
    ["command_path as a string", { command_path: "install" }],
    ["an empty word", { command_path: [""] }],
    ["a number word", { command_path: [1] }],
    ["a null word", { command_path: [null] }],
    ["seventeen words", { command_path: Array.from({ length: 17 }, () => "env") }],
    ["an overlong word", { command_path: ["x".repeat(257)] }],
    ["an unexpected property", { command_path: [], secret_value: "s3cret" }],
    ["an own __proto__ property", JSON.parse('{"__proto__": ["s3cret"]}')],
    ["an array", ["install"]],
    ["a string", "install"],
  ];

  test.each(BAD_INPUTS)("%s is invalid_params without echoing it", async (_title, input) => {
    const out = await cliCommandTool(context(), input);
    expect(out).toEqual({ error: "invalid_params", message: expect.any(String) });
    if (!("error" in out)) return;
    expect(out.message).not.toContain("s3cret");
    expect(out.message).not.toContain("install");
    expect(out.message).not.toContain("xxxx");
    // The published input schema rejects the same objects.
    if (typeof input === "object" && input !== null && !Array.isArray(input)) {
      expect(validateInput(input).valid).toBe(false);
    }
  });

  test.each([
    [
      { command_path: [""] },
      "/command_path/0: expected a non-empty string of at most 256 characters",
    ],
    [
      { command_path: Array.from({ length: 17 }, () => "env") },
      "/command_path: expected an array of at most 16 items",
    ],
    [{ command_path: [], secret_value: "s3cret" }, "/secret_value: unknown property"],
    ["install", "/: expected an object"],
  ])("%j is refused with the JSON path and the expectation", async (input, message) => {
    expect(await cliCommandTool(context(), input)).toEqual({ error: "invalid_params", message });
  });

  test.each([
    [{}],
    [{ command_path: [] }],
    [{ command_path: ["env", "remove"] }],
    [{ command_path: Array.from({ length: 16 }, () => "env") }],
  ])("%j matches the input schema", (input) => {
    expect(validateInput(input).valid).toBe(true);
  });

  test.each([[["nope"]], [["__proto__"]], [["constructor"]], [["env", "prototype"]]])(
    "%j is unknown_command without echoing the path",
    async (path) => {
      const out = await cliCommandTool(context(), { command_path: path });
      expect(out).toEqual({ error: "unknown_command", message: expect.any(String) });
      if ("error" in out) expect(out.message).not.toContain(path.at(-1) ?? "");
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  );

  test("the input schema is the published contract", () => {
    expect(CLI_COMMAND_INPUT_SCHEMA).toMatchObject({
      type: "object",
      properties: {
        command_path: {
          type: "array",
          items: { type: "string", minLength: 1 },
          maxItems: 16,
        },
      },
      additionalProperties: false,
    });
    expect(Object.keys(CLI_COMMAND_INPUT_SCHEMA.properties)).toEqual(["command_path"]);
    expect(CLI_COMMAND_OUTPUT_SCHEMA.type).toBe("object");
    expect(CLI_COMMAND_OUTPUT_SCHEMA.required).toEqual(["availability"]);
    // The output schema is strict: a field it does not name fails validation.
    expect(validateOutput({ availability: "available", package_names: [] }).valid).toBe(false);
    expect(validateOutput({ availability: "maybe" }).valid).toBe(false);
  });

  test("the schemas fit the SDK's Tool type and schema as they are", () => {
    const tool: Tool = {
      name: CLI_COMMAND_TOOL_NAME,
      description: CLI_COMMAND_TOOL_DESCRIPTION,
      inputSchema: CLI_COMMAND_INPUT_SCHEMA,
      outputSchema: CLI_COMMAND_OUTPUT_SCHEMA,
      annotations: { readOnlyHint: true },
    };
    expect(ToolSchema.safeParse(tool).success).toBe(true);
    expect(tool.name).toBe("conda_cli_command");
  });
});

describe("conda_cli_command never leaks package caches", () => {
  test("no outcome contains package_names or its packages", async () => {
    const inputs = [
      {},
      { command_path: ["install"] },
      { command_path: ["exec"] },
      { command_path: ["cx"] },
    ];
    const contexts = [
      context(),
      context({ installedVersion: null }),
      context({ installedVersion: "0.2.1" }),
      context({ currentPluginHash: null }),
    ];
    for (const ctx of contexts) {
      for (const input of inputs) {
        const serialized = JSON.stringify(await cliCommandTool(ctx, input));
        expect(serialized).not.toContain("package_names");
        for (const pkg of ["numpy", "pandas", "scipy"]) expect(serialized).not.toContain(pkg);
      }
    }
  });
});

describe("conda_cli_command reads the file on every call", () => {
  test("a manifest regenerated while the server runs is seen on the next call", async () => {
    const here = await caseDir();
    const path = join(here, "completion.msgpack");
    const readers = [undefined, createManifestReader()] as const;
    for (const reader of readers) {
      const ctx = context({ manifestPath: path, ...(reader ? { readManifest: reader } : {}) });
      await writeManifestFile(here, await exampleManifest());
      const before = await cliCommandTool(ctx, { command_path: ["install"] });
      if ("error" in before || before.availability !== "available")
        throw new Error("expected available");
      expect(before.summary).toBe("Install a list of packages into a specified conda environment.");

      const changed = await exampleManifest();
      const commands = changed.commands as Record<string, Record<string, unknown>>;
      (commands.install as Record<string, unknown>).summary = "Regenerated summary.";
      changed.plugin_hash = "aaaaaaaaaaaaaaaa";
      await writeManifestFile(here, changed);
      const after = await cliCommandTool(ctx, { command_path: ["install"] });
      if ("error" in after || after.availability !== "available")
        throw new Error("expected available");
      expect(after.summary).toBe("Regenerated summary.");
      expect(after.stale).toBe(true);
    }
  });
});

describe("createManifestReader", () => {
  test("an unchanged file is decoded once and shared", async () => {
    const path = await writeManifestFile(await caseDir(), await exampleManifest());
    const decodes: ManifestReadResult[] = [];
    const reader = createManifestReader({}, async (p, o) => {
      const result = await readManifest(p, o);
      decodes.push(result);
      return result;
    });
    const first = await reader(path);
    const second = await reader(path);
    expect(first.state).toBe("ok");
    expect(second).toBe(first);
    expect(decodes.length).toBe(1);
  });

  test("a replaced, removed or recreated file is read again", async () => {
    const here = await caseDir();
    const path = join(here, "completion.msgpack");
    const reader = createManifestReader();
    expect(await reader(path)).toEqual({ state: "not_generated" });
    await writeManifestFile(here, await exampleManifest());
    const first = await reader(path);
    expect(first.state).toBe("ok");
    await writeManifestFile(here, { version: 2, commands: {} });
    expect(await reader(path)).toEqual({
      state: "unavailable",
      reason: "manifest field version: expected the number 1",
    });
    const { rm } = await import("node:fs/promises");
    await rm(path);
    expect(await reader(path)).toEqual({ state: "not_generated" });
    await writeManifestFile(here, await exampleManifest());
    const again = await reader(path);
    expect(again.state).toBe("ok");
    expect(again).not.toBe(first);
  });

  test("passes its limits to every read", async () => {
    const reader = createManifestReader({ maxBytes: 10 });
    expect(await reader(examplePath)).toEqual({
      state: "unavailable",
      reason: "manifest file is larger than 10 bytes",
    });
  });
});
