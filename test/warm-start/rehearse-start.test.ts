import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "../../src/config/parse-config.ts";
import { createDocumentReader } from "../../src/discover/introspect.ts";
import recorded from "../../src/warm-start/rehearsal-document.jsonl" with { type: "text" };
import { rehearseStart } from "../../src/warm-start/rehearse-start.ts";
import { describeRealConda, useRealCondaSandbox } from "../support/real-conda.ts";

const RECORD_SCRIPT = join(import.meta.dir, "..", "..", "scripts", "record-rehearsal-document.ts");

let home: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "conda-mcp-rehearsal-"));
});

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const configOf = (...args: string[]) =>
  parseConfig(["--conda", join(home, "bin", "conda"), ...args], {
    env: { HOME: home, PATH: "/usr/bin:/bin" },
    platform: process.platform,
    home,
    cwd: home,
  });

/** The document recorded lines come to, read as a start reads Python's. */
function readLines(text: string) {
  const bytes = new TextEncoder().encode(text);
  const reader = createDocumentReader({ maxBytes: bytes.byteLength });
  reader.push(bytes);
  const outcome = reader.outcome();
  if (outcome.kind !== "document") throw new Error(`the recorded lines are ${outcome.kind}`);
  return outcome.document;
}

const toolNames = (toolsList: string) =>
  (JSON.parse(toolsList) as { tools: { name: string }[] }).tools.map((t) => t.name);

describe("the start-up rehearsal", () => {
  test("rehearses on a document the current schema accepts, of no machine's own paths", () => {
    // When the document's format changes, scripts/record-rehearsal-document.ts records it again.
    const document = readLines(recorded);
    expect(document.root_prefix).toBe("/opt/conda");
    expect(document.python_executable).toBe("/opt/conda/bin/python");
    expect(document.site_dirs.every((dir) => dir.startsWith("/opt/conda/"))).toBe(true);
    expect(recorded).not.toContain("/tmp/");
    if (homedir().length > 1) expect(recorded).not.toContain(homedir());
    expect(recorded).not.toContain(process.cwd());
    expect(document.tree.subcommands.map((parser) => parser.command)).toEqual([
      "config",
      "env",
      "run",
    ]);
  });

  test("composes the tool list of the recorded commands, whatever --tools names", () => {
    const names = toolNames(rehearseStart(configOf("--tools", "conda_info"), "0.0.0"));
    expect(names).toEqual(
      expect.arrayContaining(["conda_config", "conda_run", "conda_env_config_vars_set"]),
    );
    expect(names).not.toContain("conda_info");
    // Startup options still shape what it builds, as they shape the real start.
    expect(toolNames(rehearseStart(configOf("--allow-exec"), "0.0.0"))).toContain("conda_execute");
  });

  test("touches no file", async () => {
    rehearseStart(configOf(), "0.0.0");
    expect(await readdir(home)).toEqual([]);
  });
});

describeRealConda("recording the rehearsal document", () => {
  const sandbox = useRealCondaSandbox();

  test("records from a real conda a document of neutral paths that the rehearsal accepts", async () => {
    const { condaExe, env, root, home: condaHome } = sandbox();
    const out = join(root, "rehearsal-document.jsonl");
    // Run in a folder of its own: conda's `run --cwd` defaults to it.
    const cwd = join(root, "recording-folder");
    await mkdir(cwd);
    const proc = Bun.spawn([process.execPath, RECORD_SCRIPT, "--conda", condaExe, "--out", out], {
      cwd,
      env,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const text = await readFile(out, "utf8");
    expect(text).not.toContain(condaHome);
    expect(text).not.toContain(cwd);
    expect(text).not.toContain(sandbox().discovery.installation.rootPrefix);
    const document = readLines(text);
    expect(document.root_prefix).toBe("/opt/conda");
    expect(document.tree.subcommands.map((parser) => parser.command)).toEqual([
      "config",
      "env",
      "run",
    ]);
  }, 120_000);
});
