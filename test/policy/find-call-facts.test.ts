import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { credentialValues } from "../../src/catalog/redact-secrets.ts";
import type { CallFacts, TargetFacts } from "../../src/policy/call-facts.ts";
import { findCallFacts } from "../../src/policy/find-call-facts.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import {
  describeRealConda,
  makeRealCondaSandbox,
  type RealCondaSandbox,
} from "../support/real-conda.ts";

type Ask = (argv: string[], cwd?: string) => Promise<CallFacts>;

function asker(python: string, env: Record<string, string>, defaultCwd: string): Ask {
  return async (argv, cwd = defaultCwd) => {
    const answer = await findCallFacts(
      { python, argv, cwd, env, secretValues: credentialValues(env) },
      { platform: process.platform, timeoutMs: 120_000 },
    );
    if (!answer.ok) throw new Error(answer.why);
    return answer.facts;
  };
}

function parsed(facts: CallFacts) {
  if (facts.outcome !== "parsed") throw new Error(`not parsed: ${JSON.stringify(facts)}`);
  return facts;
}

function targetOf(facts: CallFacts, role: TargetFacts["role"]): TargetFacts | undefined {
  return parsed(facts).targets.find((t) => t.role === role);
}

async function makeEnv(prefix: string): Promise<void> {
  await mkdir(join(prefix, "conda-meta"), { recursive: true });
  await writeFile(join(prefix, "conda-meta", "history"), "");
}

describe("findCallFacts on the fixture conda", () => {
  let fixture: FixtureConda;
  let ask: Ask;
  beforeAll(async () => {
    fixture = await makeFixtureConda();
    ask = asker(fixture.python, fixture.env, fixture.root);
  });
  afterAll(() => fixture.cleanup());

  test("the parser's command and the values given, not the defaults", async () => {
    const facts = parsed(await ask(["--json", "remove", "--all", "-y", "-n", "demo"]));
    expect(facts.path).toEqual(["remove"]);
    expect(facts.values).toMatchObject({ json: true, all: true, yes: true, name: "demo" });
    expect(facts.values).not.toHaveProperty("dry_run");
    expect(targetOf(facts, "prefix")).toMatchObject({
      path: join(fixture.prefix, "envs", "demo"),
      exists: true,
      is_environment: true,
      is_base: false,
    });
  });

  test("modules in the call's working directory cannot stand in for Python's or conda's", async () => {
    const cwd = join(fixture.root, "hostile-cwd");
    await mkdir(join(cwd, "conda"), { recursive: true });
    // Each would answer "conda only prints" (a read) if it were imported instead of the real one.
    const lie = 'import sys\nsys.stdout.write(\'{"outcome": "prints"}\')\nsys.exit(0)\n';
    await writeFile(join(cwd, "argparse.py"), lie);
    await writeFile(join(cwd, "json.py"), lie);
    await writeFile(join(cwd, "conda", "__init__.py"), lie);
    const facts = parsed(await ask(["remove", "--all", "-y", "-n", "demo"], cwd));
    expect(facts.path).toEqual(["remove"]);
  });

  test("help, version and parse errors are told apart", async () => {
    expect(await ask(["install", "--help"])).toEqual({ outcome: "prints" });
    expect(await ask(["--version"])).toEqual({ outcome: "prints" });
    expect(await ask(["frobnicate"])).toMatchObject({ outcome: "fails" });
  });
});

describeRealConda("findCallFacts on the real conda", () => {
  let sandbox: RealCondaSandbox;
  let ask: Ask;
  let work: string;
  beforeAll(async () => {
    sandbox = await makeRealCondaSandbox();
    work = join(sandbox.root, "work");
    await mkdir(join(work, "sub"), { recursive: true });
    await writeFile(join(work, "notes.txt"), "keep me: a line that YAML reads as a mapping\n");
    await makeEnv(join(sandbox.envsDir, "outer"));
    await makeEnv(join(sandbox.envsDir, "outer", "deep", "inner"));
    await makeEnv(join(sandbox.envsDir, "alone"));
    await mkdir(join(sandbox.envsDir, "plain"), { recursive: true });
    ask = asker(sandbox.discovery.installation.python, sandbox.env, work);
  });
  afterAll(() => sandbox.cleanup());

  test("abbreviated root options and aliases resolve as conda resolves them (class B)", async () => {
    const facts = parsed(await ask(["--js", "uninstall", "--all", "-y", "-n", "alone"]));
    expect(facts.path).toEqual(["remove"]);
    expect(facts.values).toMatchObject({ json: true, all: true });
    expect(targetOf(facts, "prefix")?.is_environment).toBe(true);
    const create = parsed(await ask(["--verb", "create", "-p", "sub"]));
    expect(create.path).toEqual(["create"]);
    expect(targetOf(create, "prefix")).toMatchObject({ path: join(work, "sub"), exists: true });
  });

  test("clustered short options and `=` forms give conda's own values (class G)", async () => {
    const facts = parsed(await ask(["create", "-yp=x", "tinyhello"]));
    expect(facts.values).toMatchObject({ yes: true, prefix: "=x" });
    expect(targetOf(facts, "prefix")?.path).toBe(join(work, "=x"));
  });

  test("env create takes its target from the environment file in the cwd (class C)", async () => {
    await writeFile(join(work, "environment.yml"), "name: alone\ndependencies: []\n");
    const facts = parsed(await ask(["env", "create"]));
    expect(targetOf(facts, "prefix")).toMatchObject({
      path: join(sandbox.envsDir, "alone"),
      is_environment: true,
    });
    await writeFile(join(work, "other.yml"), `prefix: ${join(work, "sub")}\ndependencies: []\n`);
    const byPrefix = parsed(await ask(["env", "create", "--file", "other.yml"]));
    expect(targetOf(byPrefix, "prefix")).toMatchObject({ path: join(work, "sub"), exists: true });
    const missing = parsed(await ask(["env", "create", "--file", "absent.yml"]));
    expect(missing.target_error).toContain("absent.yml");
    // conda's message quotes the path; a channel token in it does not reach the client.
    const token = parsed(await ask(["env", "create", "--file", "/no/t/tk-1234567890/env.yml"]));
    expect(token.target_error).toContain("/t/<redacted>/");
    expect(token.target_error).not.toContain("tk-1234567890");
  });

  test("a name is any folder of that name in envs_dirs, as of now (class D)", async () => {
    const facts = parsed(await ask(["create", "-n", "plain"]));
    expect(targetOf(facts, "prefix")).toMatchObject({
      path: join(sandbox.envsDir, "plain"),
      exists: true,
      is_environment: false,
    });
    const rename = parsed(await ask(["rename", "-n", "alone", "plain"]));
    expect(targetOf(rename, "destination")).toMatchObject({ path: join(sandbox.envsDir, "plain") });
    await mkdir(join(sandbox.envsDir, "later"));
    expect(targetOf(await ask(["install", "-n", "later", "x"]), "prefix")?.exists).toBe(true);
  });

  test("an environment nested below the target is seen (class E)", async () => {
    const outer = targetOf(await ask(["remove", "--all", "-n", "outer"]), "prefix");
    expect(outer).toMatchObject({ is_environment: true, nested_environment: true });
    const alone = targetOf(await ask(["remove", "--all", "-n", "alone"]), "prefix");
    expect(alone?.nested_environment).toBe(false);
  });

  test("relative paths are resolved against the call's cwd (class F)", async () => {
    const facts = await ask(["install", "-p", "alone", "x"], sandbox.envsDir);
    expect(targetOf(facts, "prefix")?.path).toBe(join(sandbox.envsDir, "alone"));
  });

  test("every spelling of base is the base environment", async () => {
    const root = sandbox.discovery.installation.rootPrefix;
    for (const argv of [
      ["remove", "--all", "-n", "base"],
      ["remove", "--all", "-n", "root"],
      ["remove", "--all", "-p", `${root}/`],
      ["remove", "--all", "-p", join(root, "envs", "..")],
      ["remove", "--all"],
    ]) {
      expect(targetOf(await ask(argv), "prefix")?.is_base).toBe(true);
    }
  });

  test("config names the rc file it would write and whether it is conda's", async () => {
    const plain = targetOf(
      await ask(["config", "--file", "notes.txt", "--set", "a", "b"]),
      "rc_file",
    );
    expect(plain).toMatchObject({ path: join(work, "notes.txt"), exists: true, is_config: false });
    const user = targetOf(await ask(["config"]), "rc_file");
    expect(user).toMatchObject({
      path: join(sandbox.home, ".condarc"),
      exists: false,
      is_config: true,
    });
    // A new file must be named as conda's configuration; an existing one hold settings only.
    const profile = targetOf(await ask(["config", "--file", "~/.bash_profile"]), "rc_file");
    expect(profile).toMatchObject({ exists: false, is_config: false });
    await writeFile(join(work, "environment.yml"), "channels: [x]\ndependencies: [python]\n");
    const project = targetOf(await ask(["config", "--file", "environment.yml"]), "rc_file");
    expect(project).toMatchObject({ exists: true, is_config: false });
    await writeFile(join(work, "good.yml"), "channels: [x]\n");
    const good = targetOf(await ask(["config", "--file", "good.yml"]), "rc_file");
    expect(good?.is_config).toBe(true);
  });

  test("config names each folder it adds to pkgs_dirs, expanded as conda expands them", async () => {
    const added = async (argv: string[]) =>
      parsed(await ask(["config", "--file", "new.condarc", ...argv])).targets.flatMap((t) =>
        t.role === "pkgs_dir" ? [[t.path, t.exists, t.is_package_cache, t.is_relative]] : [],
      );
    // The sandbox's CONDA_PKGS_DIRS is a package cache conda uses; a marker file is not enough.
    await mkdir(join(work, "marked"), { recursive: true });
    await writeFile(join(work, "marked", "urls.txt"), "");
    expect(await added(["--append", "pkgs_dirs", join(work, "marked")])).toEqual([
      [join(work, "marked"), true, false, false],
    ]);
    // conda keys a list by the part before the first dot: pkgs_dirs.x adds to pkgs_dirs.
    const appended = ["--append", "pkgs_dirs", sandbox.pkgsDir, "--append", "pkgs_dirs.x", "~/c"];
    expect(await added([...appended, "--append", "channels", "x"])).toEqual([
      [sandbox.pkgsDir, true, true, false],
      [join(sandbox.home, "c"), false, false, false],
    ]);
    // Relative to the call's cwd, here envs/, where plain is an ordinary folder.
    const relative = parsed(
      await ask(
        ["config", "--file", "new.condarc", "--add", "pkgs_dirs", "plain"],
        sandbox.envsDir,
      ),
    );
    expect(relative.targets.find((t) => t.role === "pkgs_dir")).toMatchObject({
      path: join(sandbox.envsDir, "plain"),
      exists: true,
      is_package_cache: false,
      is_relative: true,
    });
  });

  test("rename says whether its destination lies inside the environment renamed", async () => {
    const inside = targetOf(
      await ask(["rename", "-n", "alone", "alone/a/b"], sandbox.envsDir),
      "destination",
    );
    expect(inside).toMatchObject({
      path: join(sandbox.envsDir, "alone", "a", "b"),
      inside_source: true,
    });
    const beside = targetOf(await ask(["rename", "-n", "alone", "elsewhere"]), "destination");
    expect(beside?.inside_source).toBe(false);
  });

  test("export names its output file and whether its formats name files so", async () => {
    const out = targetOf(await ask(["export", "--file", "notes.txt"]), "output_file");
    expect(out).toMatchObject({
      path: join(work, "notes.txt"),
      exists: true,
      named_as_export: true,
    });
    const profile = ["export", "--format", "environment-yaml", "--file", "~/.bash_profile"];
    expect(targetOf(await ask(profile), "output_file")?.named_as_export).toBe(false);
    expect(targetOf(await ask(["env", "export", "-f", "new.yml"]), "output_file")?.exists).toBe(
      false,
    );
  });

  test("help anywhere only prints", async () => {
    expect(await ask(["remove", "--all", "-n", "alone", "-h"])).toEqual({ outcome: "prints" });
    expect(await ask([])).toEqual({ outcome: "prints" });
  });
});
