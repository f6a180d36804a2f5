import { afterAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallArgs } from "../../src/policy/classify-call.ts";
import { type GuardFacts, guardCall } from "../../src/policy/guard-call.ts";

// A real conda-shaped tree: root prefix with conda-meta/, envs/plain and envs/other as
// environments, an ordinary folder with a file, a home, and a symlink to the root prefix.
const top = realpathSync(mkdtempSync(join(tmpdir(), "conda-mcp-guard-")));
afterAll(() => rmSync(top, { recursive: true, force: true }));

const root = join(top, "conda");
const envs = join(root, "envs");
const home = join(top, "home");
for (const dir of [
  join(root, "conda-meta"),
  join(envs, "plain", "conda-meta"),
  join(envs, "other", "conda-meta"),
  home,
  join(top, "data"),
]) {
  mkdirSync(dir, { recursive: true });
}
writeFileSync(join(top, "data", "notes.txt"), "keep me\n");
symlinkSync(root, join(top, "link-to-root"));

const isCondaEnvironment = (prefix: string) => existsSync(join(prefix, "conda-meta"));

function factsWith(realPath: boolean): GuardFacts {
  return {
    rootPrefix: root,
    envsDirs: [envs],
    cwd: top,
    home,
    isCondaEnvironment,
    resolveNamedEnv: (name) => {
      const prefix = join(envs, name);
      return isCondaEnvironment(prefix) ? prefix : null;
    },
    pathExists: existsSync,
    ...(realPath
      ? {
          realPath: (p: string) => {
            try {
              return realpathSync(p);
            } catch {
              return null;
            }
          },
        }
      : {}),
  };
}
const facts = factsWith(true);

// [command, args, null when allowed or a phrase the refusal contains]
const cases: [string, CallArgs, string | null][] = [
  // Removing a whole environment.
  ["remove", { all: true, name: "plain" }, null],
  ["remove", { all: true, prefix: join(envs, "plain") }, null],
  ["remove", { all: true, prefix: `${join(envs, "plain")}/` }, null],
  ["remove", { all: true, prefix: "conda/envs/plain" }, null],
  ["remove", { all: true, name: "missing" }, null],
  ["remove", { all: true, keep_env: true, name: "base" }, "base environment"],
  ["remove", { all: true, name: "base" }, "base environment"],
  ["remove", { all: true, name: "root" }, "base environment"],
  ["remove", { all: true, prefix: root }, "base environment"],
  ["remove", { all: true, prefix: `${root}/` }, "base environment"],
  ["remove", { all: true, prefix: `${root}//` }, "base environment"],
  ["remove", { all: true, prefix: join(envs, "..") }, "base environment"],
  ["remove", { all: true, prefix: join(envs, "plain", "..", "..") }, "base environment"],
  ["remove", { all: true, prefix: join(top, "link-to-root") }, "base environment"],
  ["remove", { all: true, prefix: envs }, "other environments"],
  ["remove", { all: true, prefix: top }, "other environments"],
  ["remove", { all: true, prefix: "/" }, "other environments"],
  ["remove", { all: true, prefix: join(top, "data") }, "not point at a conda environment"],
  ["remove", { all: true, prefix: "~" }, "not point at a conda environment"],
  ["remove", { all: true, prefix: "$HOME" }, "environment variable"],
  ["remove", { all: true, prefix: "~someone/x" }, "another user's home"],
  ["remove", { all: true }, "name the environment"],
  ["remove", { all: true, name: "plain", prefix: root }, "base environment"],
  // Removing packages is not a whole-environment removal.
  ["remove", { package_names: ["numpy"], name: "base" }, null],
  ["env remove", { name: "plain" }, null],
  ["env remove", { name: "base" }, "base environment"],
  ["env remove", { prefix: "/etc" }, "not point at a conda environment"],
  ["env remove", {}, "name the environment"],
  // Creating over something that exists.
  ["create", { name: "fresh", packages: ["python"] }, null],
  ["create", { prefix: join(top, "fresh") }, null],
  ["create", { dry_run: true }, null],
  ["create", { file: ["env.yml"], dry_run: true }, null],
  ["create", { name: "plain" }, "existing environment"],
  ["create", { prefix: join(envs, "plain") }, "existing environment"],
  ["create", { name: "base" }, "base environment"],
  ["create", { prefix: `${root}/` }, "base environment"],
  ["create", { prefix: home }, "not a conda environment"],
  ["create", { prefix: join(top, "data", "notes.txt") }, "not a conda environment"],
  ["create", { file: ["env.yml"] }, "environment file picks the target"],
  ["env create", { name: "fresh" }, null],
  ["env create", { file: "environment.yml" }, null],
  ["env create", { file: "environment.yml", yes: true }, "environment file picks the target"],
  ["env create", { prefix: home, yes: true }, "not a conda environment"],
  ["env create", { prefix: home, yes: true, dry_run: true }, "not a conda environment"],
  ["env create", { name: "other", yes: true }, "existing environment"],
  // Renaming.
  ["rename", { name: "plain", destination: "renamed" }, null],
  ["rename", { name: "plain", destination: join(top, "renamed") }, null],
  ["rename", { name: "base", destination: "x" }, "base environment"],
  ["rename", { prefix: root, destination: "x" }, "base environment"],
  ["rename", { destination: "x" }, "name the environment"],
  ["rename", { name: "plain", destination: "base" }, "base environment"],
  ["rename", { name: "plain", destination: "other" }, "already exists"],
  ["rename", { name: "plain", destination: join(top, "data") }, "already exists"],
  ["rename", { name: "plain", destination: "~/x" }, null],
  // Changing an environment in place never makes an ordinary folder an environment.
  ["install", { prefix: join(envs, "plain"), packages: ["numpy"] }, null],
  ["install", { prefix: join(top, "not-yet"), packages: ["numpy"] }, null],
  ["install", { name: "base", packages: ["numpy"] }, null],
  ["install", { prefix: home, packages: ["numpy"] }, "not a conda environment"],
  ["env update", { prefix: join(top, "data") }, "not a conda environment"],
  ["env config vars set", { prefix: home, vars: ["A=1"] }, "not a conda environment"],
  // Commands without guards.
  ["clean", { all: true }, null],
  ["info", {}, null],
];

describe("guardCall", () => {
  test.each(cases)("%s %j", (command, args, refusal) => {
    const decision = guardCall(command.split(" "), args, facts);
    if (refusal === null) {
      expect(decision).toEqual({ allowed: true });
      return;
    }
    expect(decision.allowed).toBe(false);
    if (!decision.allowed) {
      expect(decision.message).toStartWith("Refused: ");
      expect(decision.message).toContain(refusal);
      // Refusals name the argument, never the submitted path.
      expect(decision.message).not.toContain(top);
    }
  });

  test("without a realPath fact a symlink to the base environment is the caller's to resolve", () => {
    const decision = guardCall(
      ["remove"],
      { all: true, prefix: join(top, "link-to-root") },
      factsWith(false),
    );
    expect(decision).toEqual({ allowed: true });
  });

  test("nothing on disk was touched", () => {
    expect(existsSync(join(top, "data", "notes.txt"))).toBe(true);
    expect(isCondaEnvironment(root)).toBe(true);
  });
});

describe("guardCall on a Windows installation", () => {
  // Windows paths cannot exist on this machine, so the facts here answer from a fixed set.
  const environments = new Set(["c:\\miniconda3", "c:\\miniconda3\\envs\\plain"]);
  const windows: GuardFacts = {
    rootPrefix: "C:\\Miniconda3",
    envsDirs: ["C:\\Miniconda3\\envs"],
    cwd: "C:\\Users\\me",
    home: "C:\\Users\\me",
    isCondaEnvironment: (p) => environments.has(p.toLowerCase()),
    resolveNamedEnv: () => null,
    pathExists: (p) => environments.has(p.toLowerCase()),
  };

  test.each([
    ["c:\\miniconda3\\", "base environment"],
    ["C:/Miniconda3", "base environment"],
    ["C:\\Miniconda3\\envs\\plain\\..\\..", "base environment"],
    ["C:\\Miniconda3\\envs", "other environments"],
    ["%USERPROFILE%\\x", "environment variable"],
    ["C:\\Miniconda3\\envs\\PLAIN", null],
  ])("removing prefix %p", (prefix, refusal) => {
    const decision = guardCall(["env", "remove"], { prefix }, windows);
    if (refusal === null) expect(decision).toEqual({ allowed: true });
    else expect(decision.allowed ? "" : decision.message).toContain(refusal);
  });
});
