import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmod, readdir, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";
import { createDocumentReader } from "../../src/discover/introspect.ts";
import { INTROSPECT_SOURCE } from "../../src/discover/start-introspection.ts";
import { CondaMcpError } from "../../src/errors.ts";
import { pythonScriptEnv } from "../../src/execute/launch.ts";
import {
  type IntrospectionResult,
  introspectionDocumentSchema,
  type RawAction,
  type RawParser,
} from "../../src/introspection-payload.ts";
import recorded from "../../src/warm-start/rehearsal-document.jsonl" with { type: "text" };
import { isGone, killAll, waitUntil } from "../execute/process-test-helpers.ts";
import { expandDocument } from "../support/expand-document.ts";
import { introspectPython } from "../support/introspect-python.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { loadReferenceTree } from "../support/reference-tree.ts";

const TIMEOUT = 30_000;
let fixture: FixtureConda;
let result: IntrospectionResult;
const reportedFirst: string[][] = [];

beforeAll(async () => {
  fixture = await makeFixtureConda({ withCompletion: "0.3.2", withBrokenPlugin: true });
  result = expandDocument(
    await introspectPython(fixture.python, {
      env: fixture.env,
      timeoutMs: TIMEOUT,
      platform: process.platform,
      onSiteDirs: (siteDirs) => reportedFirst.push(siteDirs),
    }),
  );
});

afterAll(() => fixture?.cleanup());

function parser(path: string): RawParser {
  let node = result.tree;
  for (const name of path.split(" ").filter(Boolean)) {
    const next = node.subcommands.find((sub) => sub.path[sub.path.length - 1] === name);
    if (!next) throw new Error(`no parser ${path}`);
    node = next;
  }
  return node;
}

function action(path: string, option: string): RawAction {
  const found = parser(path).actions.find(
    (candidate) => candidate.option_strings.includes(option) || candidate.dest === option,
  );
  if (!found) throw new Error(`no ${option} in ${path}`);
  return found;
}

function commandPaths(node: RawParser): string[] {
  return [node.path.join(" "), ...node.subcommands.flatMap(commandPaths)];
}

describe("introspecting the fixture conda", () => {
  test("reports the interpreter, conda version and site dirs", () => {
    expect(result.ok).toBe(true);
    expect(result.conda_version).toBe("26.7.0");
    expect(result.python_executable).toBe(fixture.python);
    expect(result.site_dirs).toContain(fixture.sitePackages);
  });

  test("reports the site dirs first, on a line of their own, as the document lists them", () => {
    expect(reportedFirst).toEqual([result.site_dirs]);
  });

  test("reports the root prefix and envs dirs the disaster guards need", () => {
    expect(result.root_prefix).toBe(fixture.prefix);
    expect(result.envs_dirs).toEqual([join(fixture.prefix, "envs")]);
  });

  test("the tree holds built-in, alias and plugin commands at every depth, conda's own first", () => {
    expect(commandPaths(result.tree).filter(Boolean)).toEqual([
      "activate",
      "clean",
      "config",
      "create",
      "deactivate",
      "env",
      "env config",
      "env config vars",
      "env config vars list",
      "env config vars set",
      "env config vars unset",
      "env create",
      "env export",
      "env list",
      "env remove",
      "env update",
      "export",
      "info",
      "init",
      "install",
      "list",
      "remove",
      "run",
      "search",
      "update",
      // Registered by plugins (conda's own doctor and plugins among them): described once
      // Python has found the plugins, after conda's own commands went out.
      "check",
      "completion",
      "completion generate",
      "doctor",
      "greet",
      "plugins",
      "plugins list",
      "tools",
      "tools cache",
      "tools cache clear",
      "tools cache info",
    ]);
    expect(parser("remove").aliases).toEqual(["uninstall"]);
    expect(parser("update").aliases).toEqual(["upgrade"]);
    expect(action("", "cmd").subparsers).toMatchObject({ required: true, dest: "cmd" });
    expect(action("", "cmd").class).toBe("conda.cli.conda_argparse._GreedySubParsersAction");
    expect(result.tree.prog).toBe("conda");
    expect(parser("env config vars set").prog).toBe("conda env config vars set");
  });

  test("a plugin without configure_parser is greedy and has no actions", () => {
    const greet = parser("greet");
    expect(greet.greedy).toBe(true);
    expect(greet.actions).toEqual([]);
    expect(greet.plugin).toMatchObject({
      name: "greet",
      plugin_name: "fixture_greet.plugin",
      distribution: "fixture-greet",
      external: true,
    });
  });

  test("a plugin's nested optional subcommands and required exclusive group are kept", () => {
    expect(parser("tools").plugin).toMatchObject({ distribution: "fixture-tools", external: true });
    expect(action("tools", "tools_command").subparsers).toMatchObject({
      required: false,
      names: ["cache"],
    });
    expect(action("tools cache", "cache_command").subparsers?.names).toEqual(["clear", "info"]);
    expect(parser("tools cache clear").mutually_exclusive_groups).toContainEqual({
      index: 0,
      required: true,
      container_title: null,
      actions: ["--all", "--older-than"],
    } as never);
    expect(parser("doctor").plugin).toMatchObject({
      plugin_name: "conda.plugins.subcommands.doctor",
      external: false,
    });
  });

  test("env, env config and env config vars take optional subcommands, the latter two without dest", () => {
    expect(action("env", "cmd").subparsers).toMatchObject({ required: false, dest: "cmd" });
    expect(action("env config", "==SUPPRESS==").subparsers).toMatchObject({
      required: false,
      dest: "==SUPPRESS==",
    });
    expect(action("env config vars", "==SUPPRESS==").subparsers?.names).toEqual([
      "list",
      "set",
      "unset",
    ]);
  });

  test("lazy choices are resolved", () => {
    expect(action("install", "--solver")).toMatchObject({
      class: "conda.cli.helpers.LazyChoicesAction",
      choices: ["classic"],
      choices_kind: "lazy:dict-keys",
    });
    expect(action("info", "--console")).toMatchObject({
      choices: ["classic", "json"],
      choices_kind: "lazy:list",
    });
    expect(action("init", "shells")).toMatchObject({ choices_kind: "tuple", default: ["bash"] });
  });

  test("NULL defaults are flagged and never shown as values", () => {
    expect(action("install", "--yes")).toMatchObject({
      default: null,
      default_repr: "NULL",
      default_is_conda_NULL: true,
    });
    expect(action("install", "--dry-run")).toMatchObject({
      default: false,
      default_is_conda_NULL: false,
    });
    expect(action("install", "-v")).toMatchObject({
      class: "conda.cli.actions.NullCountAction",
      default_is_conda_NULL: true,
    });
  });

  test("deprecated actions carry the wrapped class, category and message", () => {
    const experimental = action("install", "--experimental");
    expect(experimental.class).toBe("conda.deprecations._AppendAction");
    expect(experimental.mro[1]).toBe(
      "conda.deprecations.DeprecationHandler.action.<locals>.DeprecationMixin",
    );
    expect(experimental.deprecated).toEqual({
      message:
        "`--experimental` is pending deprecation and will be removed in 27.3. Deprecated: jlap and lock no longer supported.",
      category: "builtins.PendingDeprecationWarning",
      wrapped_action: "argparse._AppendAction",
    });
    expect(experimental.help).toBe(experimental.deprecated?.message ?? "");
    expect(experimental.choices).toEqual(["jlap", "lock"]);
  });

  test("exclusive groups, shared dests and enum consts are described", () => {
    const groups = parser("install").mutually_exclusive_groups.map((group) => group.actions);
    expect(groups).toContainEqual(["--name", "--prefix"]);
    expect(groups).toContainEqual([
      "--no-update-deps",
      "--update-deps",
      "--satisfied-skip-solve",
      "--all",
      "--update-specs",
    ]);
    expect(parser("config").mutually_exclusive_groups).toHaveLength(3);
    expect(action("install", "--no-deps")).toMatchObject({
      const: null,
      const_repr: "<DepsModifier.NO_DEPS: 'no_deps'>",
      dest: "deps_modifier",
    });
    const channelPriority = parser("install").actions.filter((a) => a.dest === "channel_priority");
    expect(channelPriority.map((a) => a.option_strings[0])).toEqual([
      "--strict-channel-priority",
      "--channel-priority",
      "--no-channel-priority",
    ]);
  });

  test("hidden options, types, nargs and build-time values come through", () => {
    expect(action("install", "--debug")).toMatchObject({ help: null, help_suppressed: true });
    expect(action("install", "--revision")).toMatchObject({ type: "int", type_qualname: "int" });
    expect(action("list", "--fields")).toMatchObject({
      type: "comma_separated_stripped",
      type_qualname: "conda.cli.helpers.comma_separated_stripped",
    });
    expect(action("config", "--set")).toMatchObject({ nargs: 2, metavar: ["KEY", "VALUE"] });
    expect(action("run", "executable_call")).toMatchObject({ nargs: "...", required: true });
    expect(action("run", "--cwd").default).toBe(process.cwd());
    expect(action("clean", "--tempfiles")).toMatchObject({
      class: "conda.cli.actions.ExtendConstAction",
      nargs: "*",
      const: fixture.prefix,
    });
    expect(action("env create", "--file")).toMatchObject({
      nargs: "*",
      default: ["environment.yml"],
    });
    expect(action("env update", "--file")).toMatchObject({
      nargs: null,
      default: "environment.yml",
    });
    expect(action("", "--version")).toMatchObject({ class: "argparse._VersionAction" });
  });

  test("plugin distributions list their entry points and hooks; import failures are recorded", () => {
    const byName = Object.fromEntries(
      result.external_plugins.map((dist) => [dist.project_name, dist]),
    );
    expect(Object.keys(byName)).toEqual([
      "conda-completion",
      "fixture-broken",
      "fixture-greet",
      "fixture-tools",
    ]);
    expect(byName["fixture-tools"]).toMatchObject({
      version: "2.1.0",
      entry_points: [{ name: "fixture-tools", value: "fixture_tools.plugin", group: "conda" }],
      hooks: ["pre_commands", "subcommands"],
    });
    expect(byName["fixture-broken"]?.hooks).toEqual([]);
    expect(
      (byName["fixture-broken"] as unknown as { import_error: string }).import_error,
    ).toContain("fixture_missing_dependency");
  });

  test("the plugins' facts come after conda's own commands, before the first a plugin registers", async () => {
    const python = Bun.spawn([fixture.python, "-B", "-"], {
      env: pythonScriptEnv(fixture.env),
      stdin: new TextEncoder().encode(INTROSPECT_SOURCE),
      stdout: "pipe",
      stderr: "ignore",
    });
    const lines = (await new Response(python.stdout).text())
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(await python.exited).toBe(0);
    const kindOf = (line: Record<string, { plugin?: unknown }>) => {
      if ("command" in line) return line.command?.plugin === null ? "own" : "plugin";
      return ["external_plugins", "tree", "ok", "site_dirs"].find((key) => key in line);
    };
    const kinds = lines.map(kindOf);
    const plugins = kinds.indexOf("external_plugins");
    expect(kinds.slice(0, 2)).toEqual(["site_dirs", "ok"]);
    expect(kinds.filter((kind) => kind === "external_plugins")).toHaveLength(1);
    expect(kinds.filter((kind) => kind === "plugin").length).toBeGreaterThan(3);
    expect(kinds.slice(2, plugins).every((kind) => kind === "own")).toBe(true);
    expect(kinds.slice(plugins + 1, -1).every((kind) => kind === "plugin")).toBe(true);
    expect(kinds.at(-1)).toBe("tree");
    // Described after the plugins were found: each names the plugin that registered it.
    for (const line of lines.filter((l) => l.command?.plugin)) {
      expect(line.command.plugin.plugin_name).toBeString();
    }
  });

  test("completion facts name the per-user cache dir and the installed conda-completion", () => {
    expect(result.completion).toEqual({
      cache_dir: join(fixture.home, ".cache", "conda"),
      distribution_version: "0.3.2",
    });
  });

  test("every fixture command has the shape real conda 26.7 records for it", async () => {
    const reference = await loadReferenceTree();
    const index = (node: RawParser, into: Map<string, RawParser>) => {
      into.set(node.path.join(" "), node);
      for (const sub of node.subcommands) index(sub, into);
      return into;
    };
    const real = index(reference.tree, new Map());
    const shape = (a: RawAction) => ({
      class: a.class,
      option_strings: a.option_strings,
      dest: a.dest,
      nargs: a.nargs,
      default_is_conda_NULL: a.default_is_conda_NULL,
      type: a.type,
      choices_kind: a.choices_kind,
      required: a.required,
      help_suppressed: a.help_suppressed,
      metavar: a.metavar,
      argument_group: a.argument_group,
      mutually_exclusive_group: a.mutually_exclusive_group,
      deprecated: a.deprecated && {
        category: a.deprecated.category,
        wrapped: a.deprecated.wrapped_action,
      },
    });
    let compared = 0;
    for (const [path, ours] of index(result.tree, new Map())) {
      const theirs = real.get(path);
      if (!theirs) continue;
      expect({ path, actions: ours.actions.map(shape) }).toEqual({
        path,
        actions: theirs.actions.map(shape),
      });
      expect({ path, aliases: ours.aliases, greedy: ours.greedy }).toEqual({
        path,
        aliases: theirs.aliases,
        greedy: theirs.greedy,
      });
      compared++;
    }
    expect(compared).toBe(30);
  });
});

describe("introspection side effects", () => {
  async function listing(dir: string): Promise<string[]> {
    const entries = await readdir(dir, { recursive: true });
    const lines = await Promise.all(
      entries.map(async (entry) => {
        const info = await stat(join(dir, entry));
        return `${entry} ${info.isDirectory() ? "dir" : info.size} ${info.mtimeMs}`;
      }),
    );
    return lines.sort();
  }

  test("introspection writes nothing into the prefix or HOME", async () => {
    const fresh = await makeFixtureConda({ withCompletion: "0.3.2" });
    try {
      const before = [await listing(fresh.prefix), await listing(fresh.home)];
      await introspectPython(fresh.python, {
        env: fresh.env,
        timeoutMs: TIMEOUT,
        platform: process.platform,
      });
      expect([await listing(fresh.prefix), await listing(fresh.home)]).toEqual(before);
    } finally {
      await fresh.cleanup();
    }
  });
});

describe("broken targets", () => {
  let broken: FixtureConda;
  const condaInit = () => join(broken.sitePackages, "conda", "__init__.py");

  beforeAll(async () => {
    broken = await makeFixtureConda({ withPlugins: false });
  });
  afterAll(() => broken?.cleanup());

  async function failure(python: string, timeoutMs = TIMEOUT): Promise<CondaMcpError> {
    const error = await introspectPython(python, {
      env: broken.env,
      timeoutMs,
      platform: process.platform,
    }).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(CondaMcpError);
    return error as CondaMcpError;
  }

  test("a conda that fails to import is a readable INTROSPECTION_FAILED without a traceback", async () => {
    const original = await Bun.file(condaInit()).text();
    await writeFile(condaInit(), 'raise ImportError("simulated broken install")\n');
    try {
      const error = await failure(broken.python);
      expect(error.code).toBe("INTROSPECTION_FAILED");
      expect(error.message).toContain("could not import conda");
      expect(error.message).toContain("simulated broken install");
      expect(error.message).not.toContain("Traceback");
    } finally {
      await writeFile(condaInit(), original);
    }
  });

  test("a conda older than 23 is UNSUPPORTED_CONDA", async () => {
    const original = await Bun.file(condaInit()).text();
    await writeFile(
      condaInit(),
      original.replace('__version__ = "26.7.0"', '__version__ = "4.14.0"'),
    );
    try {
      const error = await failure(broken.python);
      expect(error.code).toBe("UNSUPPORTED_CONDA");
      expect(error.message).toContain("4.14.0");
    } finally {
      await writeFile(condaInit(), original);
    }
  });

  test("a parser that fails to build is reported with the exception's one line", async () => {
    const file = join(broken.sitePackages, "conda", "cli", "conda_argparse.py");
    const original = await Bun.file(file).text();
    await writeFile(
      file,
      `${original}\n\ndef generate_parser(**kwargs):\n    raise RuntimeError("boom while building")\n`,
    );
    try {
      const error = await failure(broken.python);
      expect(error.code).toBe("INTROSPECTION_FAILED");
      expect(error.message).toContain("RuntimeError: boom while building");
    } finally {
      await writeFile(file, original);
    }
  });

  test("text conda prints on stdout while loading does not spoil the document", async () => {
    const original = await Bun.file(condaInit()).text();
    await writeFile(
      condaInit(),
      `print("chatty conda")\nimport os\nos.write(1, b"raw fd output\\n")\n${original}`,
    );
    try {
      const document = await introspectPython(broken.python, {
        env: broken.env,
        timeoutMs: TIMEOUT,
        platform: process.platform,
      });
      expect(document.conda_version).toBe("26.7.0");
    } finally {
      await writeFile(condaInit(), original);
    }
  });

  test("the document is taken at its last line, stdout still open; an interpreter that lingers is ended soon after", async () => {
    const lingering = join(broken.root, "lingering-python");
    const pidFile = join(broken.root, "lingering-pid");
    await writeFile(
      lingering,
      `#!/bin/sh\necho $$ > '${pidFile}'\n'${broken.python}' "$@"\nsleep 60\n`,
    );
    await chmod(lingering, 0o755);
    const document = await introspectPython(lingering, {
      env: broken.env,
      timeoutMs: TIMEOUT,
      platform: process.platform,
    });
    const pid = Number(await Bun.file(pidFile).text());
    try {
      expect(document.conda_version).toBe("26.7.0");
      expect(isGone(pid)).toBe(false);
      await waitUntil(() => isGone(pid), 20_000, "the lingering interpreter ended");
    } finally {
      // The whole group, should the wrapper outlive the test: its sleep is in it too.
      killAll([-pid]);
    }
  });

  test("an interpreter that prints nothing, or does not exist, is INTROSPECTION_FAILED", async () => {
    const silent = join(broken.root, "silent-python");
    await writeFile(silent, "#!/bin/sh\necho 'not python' >&2\nexit 3\n");
    await chmod(silent, 0o755);
    const error = await failure(silent);
    expect(error.code).toBe("INTROSPECTION_FAILED");
    expect(error.message).toContain("exit code 3");
    expect(error.message).toContain("not python");
    const missing = await failure(join(broken.root, "no-such-python"));
    expect(missing.message).toContain("Could not start");
  });

  test("an interpreter that hangs is killed at the deadline", async () => {
    const hanging = join(broken.root, "hanging-python");
    await writeFile(hanging, "#!/bin/sh\nsleep 60\n");
    await chmod(hanging, 0o755);
    const error = await failure(hanging, 300);
    expect(error.code).toBe("INTROSPECTION_FAILED");
    expect(error.message).toContain("did not describe");
  });

  afterAll(async () => {
    await rm(join(broken?.root ?? "/nonexistent", "silent-python"), { force: true });
  });
});

// The recorded lines of a real conda 26.7 (three commands): the facts, a line per command, the
// plugins' facts, the root.
const LINES = recorded.trimEnd().split("\n");
const PLUGINS_AT = LINES.findIndex((line) => line.startsWith('{"external_plugins"'));
const SITE_LINE = JSON.stringify({ site_dirs: ["/opt/conda/lib/python3.11/site-packages"] });
const encode = (text: string) => new TextEncoder().encode(text);

function read(
  lines: string[],
  options: { maxBytes?: number; chunkBytes?: number; onCommand?: () => void } = {},
) {
  const siteDirs: string[][] = [];
  const reader = createDocumentReader({
    maxBytes: options.maxBytes ?? 1024 * 1024,
    onSiteDirs: (dirs) => siteDirs.push(dirs),
    onCommand: options.onCommand,
  });
  const bytes = encode(lines.map((line) => `${line}\n`).join(""));
  const step = options.chunkBytes ?? bytes.length;
  for (let at = 0; at < bytes.length; at += step) reader.push(bytes.slice(at, at + step));
  return { outcome: reader.outcome(), siteDirs, decided: reader.decided };
}

function failure(lines: string[]): { code: string; message: string } {
  const { outcome } = read(lines);
  if (outcome.kind !== "failed") throw new Error(`expected a failure, got ${outcome.kind}`);
  const error = outcome.error as CondaMcpError;
  return { code: error.code, message: error.message };
}

/** The recorded line at `index`, changed. */
function changed(index: number, change: (line: Record<string, unknown>) => void): string[] {
  const lines = [...LINES];
  const line = JSON.parse(lines[index] as string);
  change(line);
  lines[index] = JSON.stringify(line);
  return lines;
}

describe("reading introspect.py's lines", () => {
  test("puts the document together: the facts, every action in order, the commands under the root", () => {
    const { outcome, siteDirs } = read([SITE_LINE, ...LINES]);
    if (outcome.kind !== "document") throw new Error(outcome.kind);
    const { document } = outcome;
    expect(siteDirs).toEqual([["/opt/conda/lib/python3.11/site-packages"]]);
    // The whole document's own schema accepts what the lines' schemas checked piece by piece.
    expect(v.safeParse(introspectionDocumentSchema, document).success).toBe(true);
    const parts = LINES.map((line) => JSON.parse(line));
    expect(document.actions).toEqual(parts.flatMap((part) => part.actions ?? []));
    expect(document.tree.subcommands.map((command) => command.command)).toEqual([
      "config",
      "env",
      "run",
    ]);
    const { actions: _actions, ...facts } = parts[0];
    expect(document).toMatchObject(facts);
    expect(document).toMatchObject(parts[PLUGINS_AT]);
    expect(document.external_plugins.length).toBeGreaterThan(0);
    // Parsers that share an option share its one description, whichever line brought it.
    const expanded = expandDocument(document).tree;
    const help = (path: number) =>
      expanded.subcommands[path]?.actions.find((a) => a.dest === "help");
    expect(help(0)).toBe(help(2) as never);
  });

  test("chunks that split lines and characters anywhere give the same document", () => {
    // Help in other scripts than ASCII, as conda's translations or a plugin's could have.
    const lines = changed(1, (line) => {
      const [first] = line.actions as { help: string | null }[];
      if (first) first.help = "Zeigt Hilfe an: é, €, 𝄞.";
    });
    const whole = read([SITE_LINE, ...lines]).outcome;
    if (whole.kind !== "document") throw new Error(whole.kind);
    expect(whole.document.actions[0]?.help).toBe("Zeigt Hilfe an: é, €, 𝄞.");
    for (const chunkBytes of [1, 2, 3, 7, 4096]) {
      expect(read([SITE_LINE, ...lines], { chunkBytes }).outcome).toEqual(whole);
    }
  });

  test("decides at the last line, before stdout ends", async () => {
    const { decided, outcome } = read(LINES);
    await decided;
    expect(outcome.kind).toBe("document");
    // Without the root's line the document is not complete.
    expect(read(LINES.slice(0, -1)).outcome.kind).toBe("pending");
  });

  test("a failure line the script printed ends the document with its reason", () => {
    const line = (code: string) =>
      JSON.stringify({ ok: false, error: { code, message: "conda failed" } });
    expect(failure([SITE_LINE, LINES[0] as string, line("PARSER_FAILED")])).toEqual({
      code: "INTROSPECTION_FAILED",
      message: "Could not read conda's commands: conda failed",
    });
    expect(failure([SITE_LINE, line("UNSUPPORTED_CONDA")]).code).toBe("UNSUPPORTED_CONDA");
  });

  test("a line its schema refuses is named by the first field that fails, never echoed", () => {
    const secret = "s3cr3t-value";
    const refused = failure(
      changed(1, (line) => {
        (line.actions as Record<string, unknown>[])[0] = { dest: secret };
      }),
    );
    expect(refused.code).toBe("INTROSPECTION_FAILED");
    expect(refused.message).toStartWith("The introspection document is malformed: ");
    expect(refused.message).toContain("actions");
    expect(refused.message).not.toContain(secret);
  });

  test("a parser may name only the actions sent so far", () => {
    const ahead = changed(1, (line) => {
      (line.command as { actions: number[] }).actions.push(LINES.length * 1000);
    });
    expect(failure(ahead).message).toContain(
      "every action index of the tree names an entry of actions",
    );
  });

  test("what the catalog throws for a command ends the document with that error", () => {
    const broken = new Error("the catalog could not read this command");
    const { outcome } = read(LINES, {
      onCommand: () => {
        throw broken;
      },
    });
    expect(outcome).toEqual({ kind: "failed", error: broken });
  });

  test("lines out of their order, or of no kind, are malformed", () => {
    expect(failure(LINES.slice(1)).message).toContain(
      "the installation's facts did not come first",
    );
    expect(failure([LINES[0] as string, ...LINES]).message).toContain(
      "the installation's facts came twice",
    );
    expect(failure([...LINES.slice(0, 1), "not json", ...LINES.slice(1)]).message).toContain(
      "a line is not a JSON object",
    );
    expect(failure([LINES[0] as string, JSON.stringify({ other: 1 })]).message).toContain(
      "a line is none of the document's",
    );
    // The site folders' line counts only first.
    expect(failure([LINES[0] as string, SITE_LINE]).message).toContain("none of the document's");
    const plugins = LINES[PLUGINS_AT] as string;
    const withoutPlugins = LINES.filter((line) => line !== plugins);
    expect(failure(withoutPlugins).message).toContain(
      "the plugins' facts did not come before the root",
    );
    expect(failure([plugins, ...withoutPlugins]).message).toContain(
      "the installation's facts did not come first",
    );
    expect(failure([LINES[0] as string, plugins, ...LINES.slice(1)]).message).toContain(
      "the plugins' facts came twice",
    );
  });

  test("past maxBytes nothing more is read and the document stays pending", () => {
    expect(read([SITE_LINE, ...LINES], { maxBytes: 1000 }).outcome.kind).toBe("pending");
  });
});
