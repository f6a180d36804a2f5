import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Packr, pack } from "msgpackr/pack";
import { readManifest } from "../../src/completion/read-manifest.ts";
import { withDeadline } from "../support/start-server.ts";
import {
  exampleManifest,
  leafTypes,
  makeTempDir,
  replaceBytes,
  writeManifestFile,
} from "./manifest-fixture.ts";

let dir: string;
let cleanup: () => Promise<void>;
let counter = 0;

beforeAll(async () => {
  ({ dir, cleanup } = await makeTempDir());
});
afterAll(async () => {
  await cleanup();
});

/** A fresh subdirectory per case, so cases never see each other's files. */
async function caseDir(): Promise<string> {
  counter += 1;
  const path = join(dir, `case-${counter}`);
  await mkdir(path);
  return path;
}

async function readVariant(edit: (manifest: Record<string, unknown>) => unknown) {
  const manifest = await exampleManifest();
  const path = await writeManifestFile(await caseDir(), edit(manifest) ?? manifest);
  return readManifest(path);
}

describe("readManifest on a real 0.3 manifest", () => {
  test("decodes the reference example into a validated manifest", async () => {
    const result = await readVariant(() => undefined);
    expect(result.state).toBe("ok");
    if (result.state !== "ok") return;
    const { manifest } = result;
    expect(manifest.version).toBe(1);
    expect(manifest.generated_at).toBe("2026-09-20T12:00:00.000000+00:00");
    expect(manifest.plugin_hash).toBe("3f196610c9213442");
    expect(Object.keys(manifest.commands)).toEqual(["install", "env", "config", "exec"]);
    expect(Object.keys(manifest.root_options)).toEqual([
      "--version",
      "--verbose",
      "--json",
      "--no-plugins",
    ]);
    expect(manifest.commands.install?.options["--name"]).toEqual({
      short: "-n",
      completion_type: "env_name",
      description: "Name of environment.",
      metavar: "ENVIRONMENT",
      group: "Target Environment Specification",
    });
    expect(Object.keys(manifest.commands.env?.subcommands ?? {})).toEqual(["list", "remove"]);
    expect(manifest.aliases.cx).toEqual({ target: ["exec"] });
    expect(manifest.runtime_sources.cached_tool?.max_entries).toBe(10000);
  });

  test("drops package_names and keeps no trace of the package list", async () => {
    const result = await readVariant(() => undefined);
    expect(result.state).toBe("ok");
    const serialized = JSON.stringify(result);
    expect(serialized).not.toContain("package_names");
    expect(serialized).not.toContain("scipy");
  });

  test("ignores unknown keys at every level", async () => {
    const result = await readVariant((m) => {
      m.future_root_key = { nested: [1, 2, 3] };
      const commands = m.commands as Record<string, Record<string, unknown>>;
      const install = commands.install as Record<string, unknown>;
      install.future_command_key = "x";
      const options = install.options as Record<string, Record<string, unknown>>;
      (options["--name"] as Record<string, unknown>).future_option_key = 7;
      return m;
    });
    expect(result.state).toBe("ok");
    expect(JSON.stringify(result)).not.toContain("future_");
  });

  test("a nil field reads as absent, and a nil generated_at or plugin_hash as null", async () => {
    const result = await readVariant((m) => {
      m.generated_at = null;
      m.plugin_hash = null;
      const commands = m.commands as Record<string, Record<string, unknown>>;
      const install = commands.install as Record<string, unknown>;
      install.summary = null;
      install.positionals = null;
      const options = install.options as Record<string, Record<string, unknown>>;
      (options["--name"] as Record<string, unknown>).short = null;
      return m;
    });
    if (result.state !== "ok") throw new Error("expected ok");
    const { manifest } = result;
    expect(manifest.generated_at).toBeNull();
    expect(manifest.plugin_hash).toBeNull();
    const install = manifest.commands.install;
    expect(install && Object.hasOwn(install, "summary")).toBe(false);
    expect(install?.positionals).toEqual([]);
    expect(Object.keys(install?.options["--name"] ?? {})).not.toContain("short");
  });

  test("returns a frozen manifest that callers cannot alter", async () => {
    const result = await readVariant(() => undefined);
    if (result.state !== "ok") throw new Error("expected ok");
    expect(Object.isFrozen(result.manifest.commands)).toBe(true);
    expect(Object.isFrozen(result.manifest.commands.install?.positionals)).toBe(true);
  });
});

describe("readManifest when there is no usable file", () => {
  test("a missing file is not_generated", async () => {
    expect(await readManifest(join(await caseDir(), "completion.msgpack"))).toEqual({
      state: "not_generated",
    });
  });

  test("a missing cache directory is not_generated", async () => {
    const path = join(await caseDir(), "no", "such", "completion.msgpack");
    expect(await readManifest(path)).toEqual({ state: "not_generated" });
  });

  test("a path through a regular file is not_generated", async () => {
    const here = await caseDir();
    await writeFile(join(here, "file"), "x");
    expect(await readManifest(join(here, "file", "completion.msgpack"))).toEqual({
      state: "not_generated",
    });
  });

  test("a directory at the path is unavailable", async () => {
    const here = await caseDir();
    await mkdir(join(here, "completion.msgpack"));
    const result = await readManifest(join(here, "completion.msgpack"));
    expect(result).toEqual({ state: "unavailable", reason: "manifest path is not a regular file" });
  });

  test.skipIf(process.platform === "win32")(
    "a FIFO at the path is unavailable and does not wait for a writer",
    async () => {
      const here = await caseDir();
      const fifo = join(here, "completion.msgpack");
      const mkfifo = Bun.spawn(["mkfifo", fifo], { stderr: "pipe" });
      expect(await withDeadline(mkfifo.exited, 20_000, "mkfifo")).toBe(0);
      const result = await withDeadline(readManifest(fifo), 20_000, "readManifest on a FIFO");
      expect(result).toEqual({
        state: "unavailable",
        reason: "manifest path is not a regular file",
      });
    },
  );

  test.skipIf(process.platform === "win32" || process.getuid?.() === 0)(
    "an unreadable file is unavailable with the error code only",
    async () => {
      const path = await writeManifestFile(await caseDir(), await exampleManifest());
      const { chmod } = await import("node:fs/promises");
      await chmod(path, 0o000);
      expect(await readManifest(path)).toEqual({
        state: "unavailable",
        reason: "manifest file cannot be opened (EACCES)",
      });
    },
  );
  if (process.getuid?.() === 0) console.warn("skipped: unreadable-file case (running as root)");

  test("an empty file is unavailable", async () => {
    const path = await writeManifestFile(await caseDir(), new Uint8Array());
    expect(await readManifest(path)).toEqual({
      state: "unavailable",
      reason: "manifest file is empty",
    });
  });

  test("a truncated file is unavailable", async () => {
    const bytes = pack(await exampleManifest());
    const path = await writeManifestFile(await caseDir(), bytes.subarray(0, bytes.length >> 1));
    expect(await readManifest(path)).toEqual({
      state: "unavailable",
      reason: "manifest file is truncated",
    });
  });

  test.each([
    ["text", new TextEncoder().encode("not msgpack at all, just words")],
    ["the never-used 0xc1 byte", Uint8Array.from([0xc1, 0x00, 0x01])],
    ["a valid manifest followed by junk", new Uint8Array([...pack({ version: 1 }), 0x01, 0x02])],
  ])("garbage (%s) is unavailable without quoting it", async (_title, bytes) => {
    const path = await writeManifestFile(await caseDir(), bytes);
    const result = await readManifest(path);
    expect(result).toEqual({ state: "unavailable", reason: "manifest file is not valid msgpack" });
  });

  test("nesting deep enough to exhaust the decoder's stack is unavailable, not a crash", async () => {
    const bytes = new Uint8Array(200_001).fill(0x91);
    bytes[200_000] = 0xc0;
    const path = await writeManifestFile(await caseDir(), bytes);
    const result = await readManifest(path);
    expect(result.state).toBe("unavailable");
    // The shared decoder still works afterwards.
    const good = await writeManifestFile(await caseDir(), await exampleManifest());
    expect((await readManifest(good)).state).toBe("ok");
  });
});

describe("readManifest size limit", () => {
  test("a file above maxBytes is unavailable", async () => {
    const path = await writeManifestFile(await caseDir(), await exampleManifest());
    expect(await readManifest(path, { maxBytes: 64 })).toEqual({
      state: "unavailable",
      reason: "manifest file is larger than 64 bytes",
    });
  });

  test("a file of exactly maxBytes is read", async () => {
    const bytes = pack(await exampleManifest());
    const path = await writeManifestFile(await caseDir(), bytes);
    expect((await readManifest(path, { maxBytes: bytes.length })).state).toBe("ok");
  });

  test("the size is checked before reading: an 8 GiB sparse file is refused at once", async () => {
    const path = await writeManifestFile(await caseDir(), pack(await exampleManifest()));
    // Sparse: takes no disk space, but reading it would mean 8 GiB of zeros.
    await truncate(path, 8 * 1024 ** 3);
    const result = await withDeadline(readManifest(path), 20_000, "readManifest on 8 GiB");
    expect(result).toEqual({
      state: "unavailable",
      reason: `manifest file is larger than ${50 * 1024 * 1024} bytes`,
    });
  });
});

const WRONG_STRUCTURE: [title: string, content: unknown, reason: string][] = [
  ["root is a list", [1, 2], "manifest root is not a map"],
  ["root is a string", "manifest", "manifest root is not a map"],
  ["version 2", { version: 2, commands: {} }, "manifest field version: expected the number 1"],
  ["version missing", { commands: {} }, "manifest field version: expected the number 1"],
  [
    "version as a string",
    { version: "1", commands: {} },
    "manifest field version: expected the number 1",
  ],
  ["commands missing", { version: 1 }, "manifest field commands: expected a map"],
  ["commands a list", { version: 1, commands: [] }, "manifest field commands: expected a map"],
  [
    "a command that is not a map",
    { version: 1, commands: { install: "x" } },
    "manifest field commands.*: expected a map",
  ],
  [
    "an option field of the wrong type",
    { version: 1, commands: { install: { options: { "--name": { short: 5 } } } } },
    "manifest field commands.*.options.*.short: expected a string",
  ],
  [
    "choices that are not strings",
    { version: 1, commands: { install: { options: { "--x": { choices: [1] } } } } },
    "manifest field commands.*.options.*.choices: expected a list of strings",
  ],
  [
    "required that is not a boolean",
    { version: 1, root_options: { "--x": { required: "yes" } }, commands: {} },
    "manifest field root_options.*.required: expected a boolean",
  ],
  [
    "positionals that are not a list",
    { version: 1, commands: { install: { positionals: {} } } },
    "manifest field commands.*.positionals: expected a list",
  ],
  [
    "a positional without a name",
    { version: 1, commands: { install: { positionals: [{ nargs: "*" }] } } },
    "manifest field commands.*.positionals[].name: expected a string",
  ],
  [
    "completion rules that are not a list",
    { version: 1, commands: { x: { positionals: [{ name: "t", completion: { rules: {} } }] } } },
    "manifest field commands.*.positionals[].completion.rules: expected a list",
  ],
  [
    "nested subcommand with a bad field",
    { version: 1, commands: { env: { subcommands: { remove: { summary: 3 } } } } },
    "manifest field commands.*.subcommands.*.summary: expected a string",
  ],
  [
    "a positional that is not a map",
    { version: 1, commands: { install: { positionals: ["x"] } } },
    "manifest field commands.*.positionals[]: expected a map",
  ],
  [
    "a positional whose name is nil",
    { version: 1, commands: { install: { positionals: [{ name: null }] } } },
    "manifest field commands.*.positionals[].name: expected a string",
  ],
  [
    "a command that is nil",
    { version: 1, commands: { install: null } },
    "manifest field commands.*: expected a map",
  ],
  [
    "an exclusive group with a number in it",
    { version: 1, commands: { install: { exclusive_groups: [["-n", 1]] } } },
    "manifest field commands.*.exclusive_groups: expected a list of lists of strings",
  ],
  [
    "exclusive groups of the wrong shape",
    { version: 1, commands: { install: { exclusive_groups: ["-n", "-p"] } } },
    "manifest field commands.*.exclusive_groups: expected a list of lists of strings",
  ],
  [
    "an alias without a target",
    { version: 1, commands: {}, aliases: { cx: { description: "x" } } },
    "manifest field aliases.*.target: expected a list of strings",
  ],
  [
    "a runtime source with a non-integer max_entries",
    { version: 1, commands: {}, runtime_sources: { s: { max_entries: "many" } } },
    "manifest field runtime_sources.*.max_entries: expected an integer",
  ],
  [
    "a map with an integer key",
    new Map<unknown, unknown>([
      ["version", 1],
      ["commands", new Map([[1, {}]])],
    ]),
    "manifest contains a map key that is not a string",
  ],
  [
    "binary data",
    { version: 1, commands: {}, generated_at: Buffer.from([1, 2, 3]) },
    "manifest contains an unsupported msgpack value",
  ],
  [
    "a timestamp extension",
    { version: 1, commands: {}, generated_at: new Date(0) },
    "manifest contains an unsupported msgpack value",
  ],
  [
    "a non-finite number",
    { version: 1, commands: {}, runtime_sources: { s: { max_entries: Number.NaN } } },
    "manifest contains a non-finite number",
  ],
];

describe("readManifest on the wrong structure", () => {
  test.each(WRONG_STRUCTURE)("%s is unavailable", async (_title, content, reason) => {
    const path = await writeManifestFile(await caseDir(), content);
    expect(await readManifest(path)).toEqual({ state: "unavailable", reason });
  });

  test("msgpackr's own record extension is refused", async () => {
    const root = new Map<string, unknown>([
      ["version", 1],
      ["commands", { install: { summary: "x" } }],
    ]);
    const records = new Packr({ useRecords: true }).pack(root);
    const path = await writeManifestFile(await caseDir(), records);
    expect(await readManifest(path)).toEqual({
      state: "unavailable",
      reason: "manifest contains an unsupported msgpack value",
    });
  });

  test("the extension msgpack calls 'undefined' is refused", async () => {
    const bytes = pack({ version: 1, commands: {}, generated_at: "PLACEHOLDER" });
    const placeholder = pack("PLACEHOLDER");
    const path = await writeManifestFile(
      await caseDir(),
      replaceBytes(bytes, placeholder, Uint8Array.from([0xd4, 0x00, 0x00])),
    );
    expect(await readManifest(path)).toEqual({
      state: "unavailable",
      reason: "manifest contains an unsupported msgpack value",
    });
  });
});

describe("readManifest structure limits", () => {
  test("nesting deeper than maxDepth is unavailable", async () => {
    const path = await writeManifestFile(await caseDir(), await exampleManifest());
    expect(await readManifest(path, { maxDepth: 4 })).toEqual({
      state: "unavailable",
      reason: "manifest nests deeper than 4 levels",
    });
  });

  test("more entries than maxEntries is unavailable", async () => {
    const path = await writeManifestFile(await caseDir(), await exampleManifest());
    expect(await readManifest(path, { maxEntries: 10 })).toEqual({
      state: "unavailable",
      reason: "manifest has more than 10 entries",
    });
  });

  test("package_names does not count toward the entry limit", async () => {
    const manifest = await exampleManifest();
    manifest.package_names = Array.from({ length: 5000 }, (_, i) => `pkg-${i}`);
    const path = await writeManifestFile(await caseDir(), manifest);
    expect((await readManifest(path, { maxEntries: 1000 })).state).toBe("ok");
  });

  test("the example fits the default limits with room to spare", async () => {
    const path = await writeManifestFile(await caseDir(), await exampleManifest());
    expect((await readManifest(path, { maxDepth: 12, maxEntries: 200 })).state).toBe("ok");
  });
});

describe("readManifest 64-bit integers", () => {
  // msgpackr packs a BigInt as int64 (0xd3); Python's msgpack writes uint64 (0xcf) for large
  // positive ints, which is crafted here by swapping the bytes.
  const INT64_MAX = Uint8Array.from([0xd3, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
  const UINT64_MAX = Uint8Array.from([0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
  const UINT64_SAFE = Uint8Array.from([0xcf, 0x00, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);

  async function withMaxEntries(raw: Uint8Array | bigint) {
    const manifest = await exampleManifest();
    const sources = manifest.runtime_sources as Record<string, Record<string, unknown>>;
    (sources.cached_tool as Record<string, unknown>).max_entries = 2n ** 63n - 1n;
    manifest.version = 1n; // int64-encoded 1 is still version 1
    let bytes: Uint8Array = pack(manifest);
    if (raw instanceof Uint8Array) bytes = replaceBytes(bytes, INT64_MAX, raw);
    else bytes = replaceBytes(bytes, INT64_MAX, pack(raw));
    return readManifest(await writeManifestFile(await caseDir(), bytes));
  }

  test.each([
    ["int64 max becomes an exact decimal string", INT64_MAX, "9223372036854775807"],
    ["uint64 max becomes an exact decimal string", UINT64_MAX, "18446744073709551615"],
    ["a uint64 within 2^53 - 1 becomes a number", UINT64_SAFE, 2 ** 53 - 1],
    ["int64 -2^53 (unsafe) becomes a string", -(2n ** 53n), "-9007199254740992"],
    ["int64 -(2^53 - 1) becomes a number", -(2n ** 53n - 1n), -(2 ** 53 - 1)],
  ] as const)("%s", async (_title, raw, expected) => {
    const result = await withMaxEntries(raw);
    expect(result.state).toBe("ok");
    if (result.state !== "ok") return;
    expect(result.manifest.runtime_sources.cached_tool?.max_entries).toBe(expected);
    expect(result.manifest.version).toBe(1);
    expect(leafTypes(result.manifest).has("bigint")).toBe(false);
  });
});

describe("readManifest's decoder", () => {
  test("bundles msgpackr's pure-JS entry, never the native addon loader", async () => {
    const ours = await Bun.build({
      entrypoints: [join(import.meta.dir, "../../src/completion/read-manifest.ts")],
      target: "bun",
    });
    expect(ours.success).toBe(true);
    expect(await ours.outputs[0]?.text()).not.toContain("msgpackr-extract");
    // The package's root entry, by contrast, loads the addon: the check above can fail.
    const root = await Bun.build({
      entrypoints: [Bun.resolveSync("msgpackr", import.meta.dir)],
      target: "bun",
    });
    expect(await root.outputs[0]?.text()).toContain("msgpackr-extract");
  });
});
