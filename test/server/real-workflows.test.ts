import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ExecutionResult } from "../../src/result/execution-result.ts";
import {
  describeRealConda,
  makeRealCondaSandbox,
  type RealCondaSandbox,
} from "../support/real-conda.ts";
import { type RunningServer, startServer } from "../support/start-server.ts";
import { diffTrees, snapshotTree, type TreeChanges } from "../support/tree-snapshot.ts";

// What an agent does with conda, through an SDK client against the real conda, one server per
// startup policy. Every step is checked on disk: a snapshot of the sandbox (envs, home, files;
// the package cache left out) before and after says exactly what the call changed.

let sandbox: RealCondaSandbox;
const servers: Record<"read" | "write" | "destructive" | "exec", RunningServer | null> = {
  read: null,
  write: null,
  destructive: null,
  exec: null,
};
const POLICY_ARGS = {
  read: [],
  write: ["--allow-write"],
  destructive: ["--allow-destructive"],
  exec: ["--allow-exec", "--allow-write"],
};

beforeAll(async () => {
  if (!process.env.CONDA_MCP_TEST_CONDA) return;
  sandbox = await makeRealCondaSandbox();
  for (const policy of Object.keys(POLICY_ARGS) as (keyof typeof POLICY_ARGS)[]) {
    servers[policy] = await startServer({
      conda: sandbox.condaExe,
      env: sandbox.env,
      args: POLICY_ARGS[policy],
    });
  }
}, 120_000);

afterAll(async () => {
  for (const server of Object.values(servers)) await server?.close();
  await sandbox?.cleanup();
});

interface Step {
  result: CallToolResult;
  structured: ExecutionResult | undefined;
  changes: TreeChanges;
}

/** Calls a tool on the server of a policy and returns its result and what changed on disk. */
async function step(
  policy: keyof typeof servers,
  name: string,
  args: Record<string, unknown>,
): Promise<Step> {
  // The package cache, conda's user caches and the file conda leaves when it probes whether an
  // envs folder is writable are conda's own bookkeeping, not what a call asked for.
  const ignore = (path: string) =>
    path === "pkgs" || path.startsWith("home/.cache") || path.endsWith("/.conda_envs_dir_test");
  const before = await snapshotTree(sandbox.root, ignore);
  const server = servers[policy];
  if (!server) throw new Error(`no ${policy} server`);
  const result = (await server.client.callTool({ name, arguments: args }, undefined, {
    timeout: 300_000,
  })) as CallToolResult;
  const changes = diffTrees(before, await snapshotTree(sandbox.root, ignore));
  return {
    result,
    structured: result.structuredContent as ExecutionResult | undefined,
    changes,
  };
}

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

/** The succeeded step's result, or a failure that shows what conda said. */
function succeeded(outcome: Step): ExecutionResult {
  if (outcome.result.isError || !outcome.structured) {
    throw new Error(`${text(outcome.result)}\n${outcome.structured?.stderr ?? ""}`);
  }
  expect(outcome.structured.exit_code).toBe(0);
  return outcome.structured;
}

const nothingChanged: TreeChanges = { added: [], removed: [], changed: [] };

/** Package records (`name-version-build`) of an environment, read from its conda-meta. */
async function records(env: string): Promise<string[]> {
  const names = await readdir(join(sandbox.envsDir, env, "conda-meta")).catch(() => []);
  return names
    .filter((n) => n.endsWith(".json"))
    .map((n) => n.slice(0, -5))
    .sort();
}

const solve = () => ({ channel: [sandbox.channel], override_channels: true, yes: true });

describeRealConda("agent workflows through an MCP client", () => {
  test("create an environment from the local channel (--allow-write)", async () => {
    const refused = await step("read", "conda_create", {
      ...solve(),
      name: "wf",
      packages: ["tinyhello=1.0"],
    });
    expect(refused.result.isError).toBe(true);
    expect(text(refused.result)).toContain("--allow-write");
    expect(refused.changes).toEqual(nothingChanged);

    const created = await step("write", "conda_create", {
      ...solve(),
      name: "wf",
      packages: ["tinyhello=1.0"],
      json: true,
    });
    expect(succeeded(created).parsed_json).toMatchObject({ success: true });
    expect(await records("wf")).toEqual(["tinyhello-1.0-0"]);
    expect(existsSync(join(sandbox.envsDir, "wf", "bin", "tinyhello"))).toBe(true);
    // Nothing outside the new environment changed, but conda's list of environments.
    const outside = created.changes.added.filter(
      (p) => !p.startsWith("envs/wf") && !p.startsWith("home/.conda"),
    );
    expect(outside).toEqual([]);
    expect(created.changes.removed).toEqual([]);
  });

  test("install, then update a package", async () => {
    succeeded(
      await step("write", "conda_install", { ...solve(), name: "wf", packages: ["tinyworld"] }),
    );
    expect(await records("wf")).toEqual(["tinyhello-1.0-0", "tinyworld-1.0-0"]);
    const updated = await step("write", "conda_update", {
      ...solve(),
      name: "wf",
      packages: ["tinyhello"],
    });
    succeeded(updated);
    expect(await records("wf")).toEqual(["tinyhello-1.1-0", "tinyworld-1.0-0"]);
    expect(updated.changes.removed).toContain("envs/wf/conda-meta/tinyhello-1.0-0.json");
  });

  test("list --json gives what conda itself prints, as parsed_json", async () => {
    const listed = await step("read", "conda_list", { name: "wf", json: true });
    expect(listed.changes).toEqual(nothingChanged);
    const direct = await sandbox.conda(["list", "-n", "wf", "--json"]);
    expect(succeeded(listed).parsed_json).toEqual(JSON.parse(direct.stdout));
  });

  test("export to stdout reads; export to a file writes only that file", async () => {
    const shown = await step("read", "conda_export", { name: "wf" });
    expect(shown.changes).toEqual(nothingChanged);
    expect(succeeded(shown).stdout).toContain("tinyhello");

    const file = join(sandbox.root, "environment.yml");
    const refused = await step("read", "conda_export", { name: "wf", file });
    expect(refused.result.isError).toBe(true);
    expect(refused.changes).toEqual(nothingChanged);
    const written = await step("write", "conda_export", { name: "wf", file });
    succeeded(written);
    expect(written.changes).toEqual({ added: ["environment.yml"], removed: [], changed: [] });
    expect(await readFile(file, "utf8")).toContain("tinyhello");
  });

  test("env export, then env create --file makes the same environment", async () => {
    // conda picks the exporter by file name; other names need the format.
    const file = join(sandbox.root, "wf-env.yml");
    succeeded(
      await step("write", "conda_env_export", { name: "wf", file, format: "environment-yaml" }),
    );
    const created = await step("write", "conda_env_create", { file: [file], name: "wf2" });
    succeeded(created);
    expect(await records("wf2")).toEqual(await records("wf"));
  });

  test("env config vars set, list and unset", async () => {
    succeeded(
      await step("write", "conda_env_config_vars_set", { name: "wf", vars: ["GREETING=hi"] }),
    );
    const listed = await step("read", "conda_env_config_vars_list", { name: "wf", json: true });
    expect(succeeded(listed).parsed_json).toEqual({ GREETING: "hi" });
    succeeded(
      await step("write", "conda_env_config_vars_unset", { name: "wf", vars: ["GREETING"] }),
    );
    const after = await step("read", "conda_env_config_vars_list", { name: "wf", json: true });
    expect(succeeded(after).parsed_json).toEqual({});
  });

  test("config set, get and remove-key on a private condarc", async () => {
    const rc = join(sandbox.root, "private.condarc");
    await writeFile(rc, "");
    const set = await step("write", "conda_config", {
      file: rc,
      set: [["channel_priority", "strict"]],
    });
    succeeded(set);
    expect(set.changes.changed).toEqual(["private.condarc"]);
    expect(await readFile(rc, "utf8")).toContain("channel_priority: strict");
    const got = await step("read", "conda_config", {
      file: rc,
      get: ["channel_priority"],
      json: true,
    });
    expect(got.changes).toEqual(nothingChanged);
    expect(succeeded(got).parsed_json).toMatchObject({ get: { channel_priority: "strict" } });
    succeeded(await step("write", "conda_config", { file: rc, remove_key: ["channel_priority"] }));
    expect(await readFile(rc, "utf8")).not.toContain("channel_priority");
  });

  test("config without a read action rewrites an rc file, so it needs --allow-write", async () => {
    const notes = join(sandbox.root, "notes.txt");
    await writeFile(notes, "my notes, not YAML: {[\n");
    for (const args of [{}, { json: true }, { file: notes }, { get: [] }]) {
      const refused = await step("read", "conda_config", args);
      expect(refused.result.isError).toBe(true);
      expect(text(refused.result)).toContain("--allow-write");
      expect(refused.changes).toEqual(nothingChanged);
    }
    expect(await readFile(notes, "utf8")).toBe("my notes, not YAML: {[\n");
    expect(existsSync(join(sandbox.home, ".condarc"))).toBe(false);
    const shown = await step("read", "conda_config", { show: ["channels"], json: true });
    succeeded(shown);
    expect(shown.changes).toEqual(nothingChanged);
  });

  test("conda_execute's guards resolve a relative prefix against the call's cwd, as conda does", async () => {
    const dir = join(sandbox.root, "work");
    await mkdir(join(dir, "plain"), { recursive: true });
    await writeFile(join(dir, "plain", "precious.txt"), "keep me\n");
    const argv = [
      "create",
      "-y",
      "-p",
      "plain",
      "--override-channels",
      "-c",
      sandbox.channel,
      "tinyhello",
    ];
    const refused = await step("exec", "conda_execute", { argv, cwd: dir });
    expect(refused.result.isError).toBe(true);
    expect(text(refused.result)).toContain("Refused");
    expect(refused.changes).toEqual(nothingChanged);
    expect(existsSync(join(dir, "plain", "conda-meta"))).toBe(false);
  });

  test("run tinyhello inside the environment, option-like arguments reaching it unchanged (--allow-exec)", async () => {
    const argv = ["-v", "--json", "-version", "--no-plugins", "--", "--debug"];
    const ran = await step("exec", "conda_run", {
      name: "wf",
      executable_call: ["tinyhello", ...argv],
    });
    expect(succeeded(ran).stdout).toBe(`tinyhello 1.1\n${argv.join("\n")}\n`);
    expect(ran.changes).toEqual(nothingChanged);
  });

  test("search the channel", async () => {
    const found = await step("read", "conda_search", {
      channel: [sandbox.channel],
      override_channels: true,
      match_spec: "tinyhello",
      json: true,
    });
    const json = succeeded(found).parsed_json as Record<string, { version: string }[]>;
    expect(json.tinyhello?.map((p) => p.version).sort()).toEqual(["1.0", "1.1"]);
  });

  test("clean --dry-run reads and changes nothing", async () => {
    const cleaned = await step("read", "conda_clean", { all: true, dry_run: true, json: true });
    succeeded(cleaned);
    expect(cleaned.changes).toEqual(nothingChanged);
  });

  test("conda's own checks of package specs and names come back as its errors", async () => {
    const badSpec = await step("write", "conda_install", {
      ...solve(),
      name: "wf",
      packages: ["tiny;hello"],
    });
    expect(badSpec.result.isError).toBe(true);
    expect(badSpec.structured?.exit_code).not.toBe(0);
    expect(badSpec.structured?.stderr).toContain("InvalidMatchSpec");
    const badName = await step("write", "conda_create", {
      ...solve(),
      name: "two words",
      packages: ["tinyhello"],
    });
    expect(badName.result.isError).toBe(true);
    expect(badName.structured?.stderr).toContain("Environment names cannot contain");
    expect([badSpec.changes, badName.changes]).toEqual([nothingChanged, nothingChanged]);
  });

  test("remove a package (--allow-destructive; refused with --allow-write alone)", async () => {
    const refused = await step("write", "conda_remove", {
      name: "wf",
      package_names: ["tinyworld"],
      yes: true,
    });
    expect(refused.result.isError).toBe(true);
    expect(text(refused.result)).toContain("--allow-destructive");
    expect(refused.changes).toEqual(nothingChanged);
    succeeded(
      await step("destructive", "conda_remove", {
        name: "wf",
        package_names: ["tinyworld"],
        yes: true,
      }),
    );
    expect(await records("wf")).toEqual(["tinyhello-1.1-0"]);
  });

  test("rename an environment, then remove both", async () => {
    succeeded(
      await step("destructive", "conda_rename", { name: "wf2", destination: "wf3", yes: true }),
    );
    expect(existsSync(join(sandbox.envsDir, "wf2"))).toBe(false);
    expect(await records("wf3")).toEqual(["tinyhello-1.1-0", "tinyworld-1.0-0"]);
    succeeded(await step("destructive", "conda_env_remove", { name: "wf3", yes: true }));
    succeeded(await step("destructive", "conda_remove", { name: "wf", all: true, yes: true }));
    expect(existsSync(join(sandbox.envsDir, "wf3"))).toBe(false);
    expect(existsSync(join(sandbox.envsDir, "wf", "conda-meta"))).toBe(false);
  });
});
