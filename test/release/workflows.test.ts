import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binaryName, RELEASE_TARGETS, REPO_ROOT } from "../../scripts/build.ts";
import { runProgram } from "../support/run-program.ts";

// The GitHub workflows cannot run here; this checks what a typo would break only on a push or
// a tag: triggers, the job graph, artifact names, permissions, pinned actions, and the scripts
// and binaries the steps name. Parsed with Bun's own YAML parser.

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, string | number | boolean>;
  env?: Record<string, string>;
}

interface Job {
  name?: string;
  needs?: string | string[];
  "runs-on": string;
  permissions?: Record<string, string> | string;
  "timeout-minutes"?: number;
  strategy?: { matrix?: { os?: string[]; include?: Record<string, string>[] } };
  env?: Record<string, string>;
  steps: Step[];
}

interface Workflow {
  name: string;
  on: Record<string, unknown>;
  permissions?: Record<string, string> | string;
  concurrency?: { group?: string; "cancel-in-progress"?: boolean };
  jobs: Record<string, Job>;
}

const WORKFLOWS = join(REPO_ROOT, ".github", "workflows");

/** A workflow expression as the YAML spells it: `expr("matrix.os")` is `${{ matrix.os }}`. */
const expr = (body: string): string => `\${{ ${body} }}`;

async function load(file: string): Promise<Workflow> {
  return Bun.YAML.parse(await Bun.file(join(WORKFLOWS, file)).text()) as Workflow;
}

const ci = await load("ci.yml");
const release = await load("release.yml");
const BOTH: [string, Workflow][] = [
  ["ci.yml", ci],
  ["release.yml", release],
];

function needsOf(job: Job): string[] {
  return job.needs === undefined ? [] : [job.needs].flat();
}

/** Every job `name` depends on, directly or not. */
function ancestors(workflow: Workflow, name: string): Set<string> {
  const seen = new Set<string>();
  const visit = (job: string) => {
    const found = workflow.jobs[job];
    for (const need of found ? needsOf(found) : []) {
      if (!seen.has(need)) {
        seen.add(need);
        visit(need);
      }
    }
  };
  visit(name);
  return seen;
}

function steps(workflow: Workflow): [string, Step][] {
  return Object.entries(workflow.jobs).flatMap(([id, job]) => job.steps.map((s) => [id, s]));
}

/** The step using `action` (owner/repo, any version) in a job. */
function uses(job: Job, action: string): Step[] {
  return job.steps.filter((s) => s.uses?.startsWith(`${action}@`));
}

/** The GitHub runner label each binary is tested on, and the release target it runs. */
const RUNNER_TARGETS: Record<string, string> = {
  "ubuntu-latest": binaryName("bun-linux-x64"),
  "macos-latest": binaryName("bun-darwin-arm64"),
  "windows-latest": binaryName("bun-windows-x64"),
};

describe.each(BOTH)("%s", (_file, workflow) => {
  test("every needs names a job of the same workflow, and the graph has no cycle", () => {
    for (const [id, job] of Object.entries(workflow.jobs)) {
      for (const need of needsOf(job)) expect(Object.keys(workflow.jobs)).toContain(need);
      expect(ancestors(workflow, id).has(id)).toBe(false);
    }
  });

  test("permissions are set for the workflow, none is write-all or read-all", () => {
    expect(workflow.permissions).toBeDefined();
    for (const job of Object.values(workflow.jobs)) {
      const effective = job.permissions ?? workflow.permissions;
      expect(typeof effective).toBe("object");
    }
  });

  test("a concurrency group is set", () => {
    expect(workflow.concurrency?.group).toMatch(/\$\{\{ github\./);
    expect(typeof workflow.concurrency?.["cancel-in-progress"]).toBe("boolean");
  });

  test("every job has a timeout", () => {
    for (const job of Object.values(workflow.jobs)) {
      expect(job["timeout-minutes"]).toBeNumber();
    }
  });

  test("every action is pinned to a major version or a commit, never a branch", () => {
    for (const [, step] of steps(workflow)) {
      if (step.uses)
        expect(step.uses).toMatch(/^[\w.-]+\/[\w.-]+@(v\d+(\.\d+){0,2}|[0-9a-f]{40})$/);
    }
  });

  test("checkouts keep no credentials", () => {
    for (const job of Object.values(workflow.jobs)) {
      for (const step of uses(job, "actions/checkout")) {
        expect(step.with?.["persist-credentials"]).toBe(false);
      }
    }
  });

  test("no run script has an expression pasted in (values reach scripts through env)", () => {
    for (const [, step] of steps(workflow)) {
      if (step.run) expect(step.run).not.toMatch(/\$\{\{/);
    }
  });

  test("every artifact downloaded was uploaded, under that name, by a job it needs", () => {
    for (const [id, job] of Object.entries(workflow.jobs)) {
      for (const step of uses(job, "actions/download-artifact")) {
        const name = step.with?.name;
        expect(name).toBeString();
        const uploaders = [...ancestors(workflow, id)].filter((up) =>
          uses(workflow.jobs[up] as Job, "actions/upload-artifact").some(
            (s) => s.with?.name === name,
          ),
        );
        expect({ job: id, artifact: name, uploaders }).toEqual({
          job: id,
          artifact: name,
          uploaders: [expect.any(String)],
        });
      }
    }
  });

  test("every repository script a step runs exists", () => {
    // Written on its own branch at the same time as this workflow.
    const pending = new Set(["scripts/build-conda-package.ts"]);
    for (const [, step] of steps(workflow)) {
      for (const [path] of (step.run ?? "").matchAll(/scripts\/[\w-]+\.ts/g)) {
        if (!pending.has(path)) expect(existsSync(join(REPO_ROOT, path))).toBe(true);
      }
    }
  });
});

describe("ci.yml", () => {
  const test_ = ci.jobs.test as Job;

  test("runs on pushes to main and on pull requests", () => {
    expect(Object.keys(ci.on).sort()).toEqual(["pull_request", "push"]);
    expect(ci.on.push).toEqual({ branches: ["main"] });
    expect(ci.permissions).toEqual({ contents: "read" });
  });

  test("the suite runs on ubuntu, macOS and Windows", () => {
    expect(test_.strategy?.matrix?.os).toEqual(["ubuntu-latest", "macos-latest", "windows-latest"]);
    expect(test_["runs-on"]).toBe(expr("matrix.os"));
  });

  test("a real conda from setup-miniconda is named by CONDA_MCP_TEST_CONDA before npm ci and the suite", () => {
    const runs = test_.steps.map((s) => s.uses?.split("@")[0] ?? s.run ?? "");
    const conda = runs.indexOf("conda-incubator/setup-miniconda");
    const named = runs.findIndex((r) =>
      r.includes('echo "CONDA_MCP_TEST_CONDA=$conda_exe" >> "$GITHUB_ENV"'),
    );
    const install = runs.indexOf("npm ci");
    const suite = runs.indexOf("npm test");
    expect(conda).toBeGreaterThan(-1);
    expect([conda < named, named < suite, install < suite]).toEqual([true, true, true]);
    expect(uses(test_, "actions/setup-node")).toHaveLength(1);
  });

  test("type-check and lint run too", () => {
    const runs = (ci.jobs.lint as Job).steps.map((s) => s.run);
    expect(runs).toEqual(expect.arrayContaining(["npm ci", "npm run check", "npm run lint"]));
  });
});

describe("release.yml", () => {
  const jobs = release.jobs;

  test("runs only on v* tags, and no two runs for one tag overlap or cancel each other", () => {
    expect(release.on).toEqual({ push: { tags: ["v*"] } });
    expect(release.concurrency).toEqual({
      group: `release-${expr("github.ref")}`,
      "cancel-in-progress": false,
    });
  });

  test("the release job comes after the build, every test job and both package jobs", () => {
    expect(needsOf(jobs.release as Job).sort()).toEqual(
      ["arm64-under-qemu", "build", "conda-packages", "npm-packages", "test"].sort(),
    );
    expect(needsOf(jobs["npm-publish"] as Job)).toEqual(["release"]);
    for (const job of ["test", "arm64-under-qemu", "conda-packages", "npm-packages"]) {
      expect(needsOf(jobs[job] as Job)).toEqual(["build"]);
    }
  });

  test("the build job compiles all six targets and checks SHA256SUMS; no job uses a cache", () => {
    const runs = (jobs.build as Job).steps.map((s) => s.run);
    expect(runs).toContain("npm run build -- --target all");
    expect(runs).toContain("cd dist && sha256sum -c SHA256SUMS");
    for (const [, step] of steps(release)) expect(step.with?.cache).toBeUndefined();
    expect(RELEASE_TARGETS).toHaveLength(6);
  });

  test("each runner OS runs its own binary through test/server and test/adversarial", () => {
    const job = jobs.test as Job;
    const include = job.strategy?.matrix?.include ?? [];
    expect(Object.fromEntries(include.map((m) => [m.os, m.binary]))).toEqual(RUNNER_TARGETS);
    expect(job["runs-on"]).toBe(expr("matrix.os"));
    const suite = job.steps.find((s) => s.run?.includes("test/server test/adversarial"));
    expect(suite?.run).toBe("npx bun test --timeout 60000 test/server test/adversarial");
    expect(suite?.env?.CONDA_MCP_TEST_BINARY).toBe(
      `${expr("github.workspace")}/dist/${expr("matrix.binary")}`,
    );
    expect(uses(job, "conda-incubator/setup-miniconda")).toHaveLength(1);
  });

  test("the arm64 binary the release ships is the one run under qemu", () => {
    const runs = (jobs["arm64-under-qemu"] as Job).steps.map((s) => s.run ?? "");
    expect(runs).toContain(
      `npx bun scripts/run-arm64-under-qemu.ts --binary dist/${binaryName("bun-linux-arm64")}`,
    );
    expect(
      runs.some((r) =>
        r.includes("apt-get install -y --no-install-recommends qemu-user libc6-arm64-cross"),
      ),
    ).toBe(true);
  });

  test("the npm packages are written for all six targets with this repository's URL", () => {
    const run = (jobs["npm-packages"] as Job).steps.map((s) => s.run ?? "").join("\n");
    expect(run).toContain(
      "scripts/build-npm-packages.ts --dist dist --outdir dist/npm --all-targets",
    );
    expect(run).toContain('--repository "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY"');
    expect(run).toContain("npm pack");
    const conda = (jobs["conda-packages"] as Job).steps.map((s) => s.run ?? "").join("\n");
    expect(conda).toContain("scripts/build-conda-package.ts");
  });

  test("only the release job may write contents; it attests what it attaches", () => {
    for (const [id, job] of Object.entries(jobs)) {
      const permissions = job.permissions as Record<string, string>;
      expect(permissions).toBeObject();
      const writes = Object.keys(permissions).filter((k) => permissions[k] === "write");
      const allowed: Record<string, string[]> = {
        release: ["contents", "id-token", "attestations"],
        "npm-publish": ["id-token"],
      };
      expect({ job: id, writes: writes.sort() }).toEqual({
        job: id,
        writes: (allowed[id] ?? []).sort(),
      });
    }
    const job = jobs.release as Job;
    const attest = uses(job, "actions/attest-build-provenance");
    expect(attest.map((s) => s.with?.["subject-path"])).toEqual(["release/*"]);
    const publish = job.steps.find((s) => s.run?.includes("gh release create"));
    expect(publish?.run).toContain('release/* --repo "$GITHUB_REPOSITORY" --verify-tag');
    expect(job.steps.indexOf(attest[0] as Step)).toBeLessThan(job.steps.indexOf(publish as Step));
  });

  test("npm publish runs with provenance only when an NPM_TOKEN secret exists", () => {
    const job = jobs["npm-publish"] as Job;
    expect(job.env).toEqual({ NPM_TOKEN: expr("secrets.NPM_TOKEN") });
    const publish = job.steps.find((s) => s.run?.includes("npm publish"));
    expect(publish?.if).toBe("env.NPM_TOKEN != ''");
    expect(publish?.run).toContain('npm publish "$1" --provenance --access public');
    for (const step of job.steps) expect(step.if).toMatch(/^env\.NPM_TOKEN [!=]= ''$/);
  });
});

// shellcheck (Debian: apt-get install shellcheck) reads every run script as the bash it is.
const SHELLCHECK = Bun.which("shellcheck");
describe.skipIf(!SHELLCHECK)(
  SHELLCHECK ? "run scripts" : "run scripts (skipped: shellcheck is not on PATH)",
  () => {
    test("shellcheck finds nothing in any workflow's run scripts", async () => {
      const dir = await mkdtemp(join(tmpdir(), "conda-mcp-shellcheck-"));
      try {
        const files: string[] = [];
        for (const [file, workflow] of BOTH) {
          for (const [index, [job, step]] of steps(workflow).entries()) {
            if (!step.run) continue;
            const path = join(dir, `${file}-${job}-${index}.sh`);
            // `shell: bash` runs `bash --noprofile --norc -eo pipefail {0}`: the same options.
            await writeFile(path, `#!/usr/bin/env bash\nset -eo pipefail\n${step.run}`);
            files.push(path);
          }
        }
        const run = await runProgram([SHELLCHECK as string, "--severity=style", ...files], {
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
          timeoutMs: 60_000,
        });
        expect(run.stdout).toBe("");
        expect(run.exitCode).toBe(0);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  },
);
