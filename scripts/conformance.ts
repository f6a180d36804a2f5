#!/usr/bin/env bun
/**
 * Runs the server scenarios of @modelcontextprotocol/conformance (the pinned devDependency)
 * against conda-mcp serving Streamable HTTP for a fixture conda, and reports which scenarios
 * apply to this server and which pass. Exits 1 when an applicable scenario fails, or when the
 * suite has a scenario this script does not classify yet (a suite upgrade must be reviewed).
 *
 *   bun scripts/conformance.ts [--scenario NAME]...
 *
 * The suite's CLI cannot send request headers, so a relay on 127.0.0.1 adds the bearer token
 * and forwards everything else unchanged (a Host naming the relay is mapped to the server's, any
 * other Host is passed on as is, so DNS-rebinding checks still reach the server). The suite needs
 * Node 22 APIs: it runs under Bun's runtime (what `bunx --bun` does), from its local install so
 * nothing is fetched by name. CONDA_MCP_TEST_BINARY selects a compiled server, as in the tests.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { makeFixtureConda } from "../test/support/make-fixture-conda.ts";
import { type HttpServer, startHttpServer } from "../test/support/start-http-server.ts";

/** Scenarios that test what conda-mcp serves: initialize, ping, tools, resources, transport. */
const APPLICABLE = new Set([
  "server-initialize",
  "ping",
  "tools-list",
  "resources-list",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
]);

const SUITE_TOOLS = "needs the suite's own test tools; conda-mcp serves only conda's commands";
const SUITE_RESOURCES =
  "needs the suite's test:// resources; conda-mcp serves only conda://capabilities";
const NO_PROMPTS = "conda-mcp serves no prompts";
const NO_CLIENT_REQUESTS = "conda-mcp never asks the client for sampling or elicitation";

/** Why each other scenario does not apply to conda-mcp. */
const NOT_APPLICABLE: Record<string, string> = {
  "logging-set-level": "no logging capability: conda's output goes into each call's result",
  "completion-complete": "no prompts or resource templates to complete",
  "tools-call-simple-text": SUITE_TOOLS,
  "tools-call-image": SUITE_TOOLS,
  "tools-call-audio": SUITE_TOOLS,
  "tools-call-embedded-resource": SUITE_TOOLS,
  "tools-call-mixed-content": SUITE_TOOLS,
  "tools-call-with-logging": `${SUITE_TOOLS}; no logging capability`,
  "tools-call-error": `${SUITE_TOOLS} (tool errors are covered by the server tests)`,
  "tools-call-with-progress": `${SUITE_TOOLS} (progress is covered by the server tests)`,
  "tools-call-sampling": `${SUITE_TOOLS}; ${NO_CLIENT_REQUESTS}`,
  "tools-call-elicitation": `${SUITE_TOOLS}; ${NO_CLIENT_REQUESTS}`,
  "json-schema-2020-12": SUITE_TOOLS,
  "elicitation-sep1034-defaults": NO_CLIENT_REQUESTS,
  "elicitation-sep1330-enums": NO_CLIENT_REQUESTS,
  "server-sse-polling":
    "needs the suite's test_reconnection tool and resumable streams; conda-mcp keeps no event store (a dropped stream cancels its calls)",
  "resources-read-text": SUITE_RESOURCES,
  "resources-read-binary": SUITE_RESOURCES,
  "resources-templates-read": `${SUITE_RESOURCES}; it has no templates`,
  "resources-subscribe": "conda://capabilities is immutable; subscribe is declared false",
  "resources-unsubscribe": "conda://capabilities is immutable; subscribe is declared false",
  "prompts-list": NO_PROMPTS,
  "prompts-get-simple": NO_PROMPTS,
  "prompts-get-with-args": NO_PROMPTS,
  "prompts-get-embedded-resource": NO_PROMPTS,
  "prompts-get-with-image": NO_PROMPTS,
};

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | string;
  description?: string;
  errorMessage?: string;
}

const RUN_DEADLINE_MS = 5 * 60_000;

function conformanceCli(): string {
  const packageJson = Bun.resolveSync(
    "@modelcontextprotocol/conformance/package.json",
    import.meta.dir,
  );
  const bin = JSON.parse(readFileSync(packageJson, "utf8")).bin as Record<string, string>;
  const entry = bin.conformance;
  if (!entry) throw new Error("@modelcontextprotocol/conformance has no conformance bin");
  return join(dirname(packageJson), entry);
}

/** A loopback relay that adds the bearer token the suite's CLI cannot send. */
function startRelay(target: URL, token: string) {
  const relay = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    fetch: async (request) => {
      const headers = new Headers(request.headers);
      if (headers.get("host") === `127.0.0.1:${relay.port}`) headers.set("host", target.host);
      headers.set("authorization", `Bearer ${token}`);
      const url = new URL(request.url);
      const upstream = await fetch(new URL(url.pathname + url.search, target), {
        method: request.method,
        headers,
        body: ["GET", "HEAD"].includes(request.method) ? undefined : await request.arrayBuffer(),
        // A client that hangs up is seen by the server too (it cancels that stream's calls).
        signal: request.signal,
      });
      return new Response(upstream.body, { status: upstream.status, headers: upstream.headers });
    },
  });
  return { relay, url: `http://127.0.0.1:${relay.port}/mcp` };
}

/** Runs the suite into outDir; resolves with its exit code (its own verdict is not ours). */
async function runSuite(url: string, outDir: string, scenarios: string[]): Promise<number> {
  const selection =
    scenarios.length === 0 ? [["--suite", "all"]] : scenarios.map((s) => ["--scenario", s]);
  let last = 0;
  for (const select of selection) {
    const proc = Bun.spawn(
      [process.execPath, conformanceCli(), "server", "--url", url, ...select, "-o", outDir],
      { stdin: "ignore", stdout: "pipe", stderr: "inherit" },
    );
    const timer = setTimeout(() => proc.kill("SIGKILL"), RUN_DEADLINE_MS);
    await new Response(proc.stdout).text();
    last = await proc.exited;
    clearTimeout(timer);
    if (proc.signalCode === "SIGKILL") throw new Error("the conformance suite did not finish");
  }
  return last;
}

/** checks.json of every scenario the suite wrote into outDir. */
function readResults(outDir: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  for (const entry of readdirSync(outDir)) {
    const scenario = entry.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");
    const checks = JSON.parse(readFileSync(join(outDir, entry, "checks.json"), "utf8")) as Check[];
    results.set(scenario, checks);
  }
  return results;
}

function verdict(checks: Check[]): { passed: boolean; summary: string } {
  const count = (status: string) => checks.filter((c) => c.status === status).length;
  const problems = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
  const passed = count("SUCCESS") > 0 && problems.length === 0;
  const detail = problems.map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
  return {
    passed,
    summary: [
      `${count("SUCCESS")} ok, ${count("FAILURE")} failed, ${count("WARNING")} warnings`,
      ...detail,
    ].join("\n      "),
  };
}

function parseArgs(argv: string[]): string[] {
  const scenarios: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--scenario" && argv[i + 1]) scenarios.push(argv[++i] as string);
    else throw new Error("usage: bun scripts/conformance.ts [--scenario NAME]...");
  }
  return scenarios;
}

async function main(): Promise<number> {
  const scenarios = parseArgs(process.argv.slice(2));
  const fixture = await makeFixtureConda();
  const outDir = await mkdtemp(join(tmpdir(), "conda-mcp-conformance-"));
  let server: HttpServer | undefined;
  let relay: ReturnType<typeof startRelay> | undefined;
  try {
    const token = randomBytes(32).toString("base64url");
    const tokenFile = join(fixture.root, "http-token");
    writeFileSync(tokenFile, token, { mode: 0o600 });
    server = await startHttpServer({
      conda: fixture.condaExe,
      env: fixture.env,
      args: ["--http-token-file", tokenFile],
      fallbackToken: token,
    });
    relay = startRelay(server.url, token);
    process.stdout.write(`conda-mcp at ${server.url}; suite talks to the relay at ${relay.url}\n`);
    await runSuite(relay.url, outDir, scenarios);
    const results = readResults(outDir);

    let applicablePassed = 0;
    let applicableFailed = 0;
    let notApplicable = 0;
    const unclassified: string[] = [];
    const order = (s: string) => (APPLICABLE.has(s) ? 0 : s in NOT_APPLICABLE ? 2 : 1);
    const names = [...results.keys()].sort((a, b) => order(a) - order(b) || a.localeCompare(b));
    for (const scenario of names) {
      const { passed, summary } = verdict(results.get(scenario) ?? []);
      if (APPLICABLE.has(scenario)) {
        if (passed) applicablePassed++;
        else applicableFailed++;
        process.stdout.write(`${passed ? "PASS" : "FAIL"}  ${scenario}: ${summary}\n`);
      } else if (scenario in NOT_APPLICABLE) {
        notApplicable++;
        const outcome = passed ? "passes anyway" : "fails as expected";
        process.stdout.write(`n/a   ${scenario}: ${NOT_APPLICABLE[scenario]} (${outcome})\n`);
      } else {
        unclassified.push(scenario);
        process.stdout.write(`????  ${scenario}: not classified by this script; ${summary}\n`);
      }
    }
    const missing = scenarios.length === 0 ? [...APPLICABLE].filter((s) => !results.has(s)) : [];
    for (const scenario of missing) process.stdout.write(`FAIL  ${scenario}: did not run\n`);
    process.stdout.write(
      `${applicablePassed} passed, ${applicableFailed + missing.length} failed, ${notApplicable} not applicable, ${unclassified.length} unclassified\n`,
    );
    if (applicablePassed + applicableFailed === 0 && scenarios.length === 0) return 1;
    return applicableFailed + missing.length + unclassified.length === 0 ? 0 : 1;
  } catch (error) {
    process.stderr.write(`conformance: ${error instanceof Error ? error.message : error}\n`);
    if (server) process.stderr.write(server.stderr());
    return 1;
  } finally {
    await relay?.relay.stop(true);
    await server?.kill("SIGTERM").catch(() => server?.kill("SIGKILL"));
    await rm(outDir, { recursive: true, force: true });
    await fixture.cleanup();
  }
}

process.exit(await main());
