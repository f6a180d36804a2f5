import { expect, test } from "bun:test";
import { DEFAULTS } from "../../src/config/option-table.ts";
import { parseConfig, usage } from "../../src/config/parse-config.ts";
import { CondaMcpError } from "../../src/errors.ts";

const host = {
  env: { PATH: "/usr/bin", UNSET: undefined },
  platform: "linux" as const,
  home: "/home/u",
  cwd: "/work",
};

test("defaults: serve, read-only policy, cache on, server limits from one place", () => {
  const config = parseConfig([], host);
  expect(config).toMatchObject({
    mode: "serve",
    allowWrite: false,
    allowDestructive: false,
    allowExec: false,
    cache: true,
    schemaDetail: "compact",
    timeoutMs: DEFAULTS.timeoutSeconds * 1000,
    maxOutputBytes: DEFAULTS.maxOutputBytes,
  });
  expect(config.env).toEqual({ PATH: "/usr/bin" });
});

test.each([
  [["--allow-destructive"], { allowWrite: true, allowDestructive: true, allowExec: false }],
  [["--allow-exec"], { allowWrite: false, allowExec: true }],
  [["--conda", "/opt/conda/bin/conda"], { condaPath: "/opt/conda/bin/conda" }],
  [["--conda=/x/conda"], { condaPath: "/x/conda" }],
  [["--tools", "conda_info, env list"], { tools: ["conda_info", "env list"] }],
  [["--timeout", "90", "--max-output-bytes", "2048"], { timeoutMs: 90_000, maxOutputBytes: 2048 }],
  [["catalog", "--json"], { mode: "catalog", json: true }],
  [["--no-cache", "--read-only-tools"], { cache: false, readOnlyTools: true }],
  [["--schema-detail", "full"], { schemaDetail: "full" }],
  [["setup", "vscode"], { mode: "setup", setupClient: "vscode", setupScope: "user", print: false }],
  [
    ["setup", "cursor", "--scope", "project", "--print", "--allow-write", "--timeout=5"],
    { setupScope: "project", print: true, serveArgs: ["--allow-write", "--timeout", "5"] },
  ],
  [["setup", "gemini", "--help"], { mode: "help" }],
  [["--help"], { mode: "help" }],
  [["--version"], { mode: "version" }],
])("parseConfig(%j)", (argv, expected) => {
  expect(parseConfig(argv, host)).toMatchObject(expected);
});

test.each([
  [["--http", "8765"], { host: "127.0.0.1", port: 8765, loopback: true }],
  [["--http", "localhost:0"], { host: "127.0.0.1", port: 0, loopback: true }],
  [["--http=127.0.0.2:9000"], { host: "127.0.0.2", port: 9000, loopback: true }],
  [["--http", "[::1]:8765"], { host: "::1", port: 8765, loopback: true }],
  [
    ["--http", "0.0.0.0:8765", "--http-allow-remote"],
    { host: "0.0.0.0", port: 8765, loopback: false },
  ],
  [["--http", "[::]:8765", "--http-allow-remote"], { host: "::", port: 8765, loopback: false }],
])("parseConfig(%j) listens where asked", (argv, expected) => {
  expect(parseConfig(argv, host).http).toEqual(expected);
});

test.each([
  [["--timeout", "0"], "--timeout takes a number greater than 0"],
  [["--timeout"], "--timeout needs a value"],
  [["--allow-write=no"], "--allow-write takes no value"],
  [["--bogus"], 'unknown option "--bogus"'],
  [["--json"], "--json goes with the catalog command"],
  [["--tools", " , "], "--tools needs at least one tool name"],
  [["--max-output-bytes", "lots"], "--max-output-bytes takes a number"],
  [["--schema-detail", "verbose"], "--schema-detail takes compact or full"],
  [["setup"], "setup needs the client right after it: one of claude-desktop, claude-code"],
  [
    ["setup", "zed"],
    'setup takes CLIENT (claude-desktop, claude-code, vscode, cursor, gemini), not "zed"',
  ],
  [["setup", "claude-desktop", "--scope", "project"], "claude-desktop has no project scope"],
  [["setup", "cursor", "--scope", "team"], "--scope takes user or project"],
  [["setup", "cursor", "--http", "8080"], "--http goes with serving, not setup"],
  [["--print"], "--print goes with the setup command"],
  [["--allow-write", "setup", "cursor"], "setup must come first"],
  [["--http", "0.0.0.0:8765"], "--http-allow-remote"],
  [["--http", "192.168.1.5:8765"], "--http-allow-remote"],
  [["--http", "[::]:8765"], "--http-allow-remote"],
  [["--http", "myhost.example:8765"], "--http-allow-remote"],
  [["--http", "70000"], "PORT from 0 to 65535"],
  [["--http", "host:"], "--http takes PORT"],
  [["--http", "300.1.1.1:80"], "above 255"],
  [["--http-token-file", "/t"], "go with --http"],
  [["--http-allow-remote"], "go with --http"],
  [["catalog", "--http", "1"], "not catalog"],
])("parseConfig(%j) refuses with a message saying what to change", (argv, message) => {
  let thrown: unknown;
  try {
    parseConfig(argv, host);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(CondaMcpError);
  expect((thrown as CondaMcpError).code).toBe("INVALID_OPTION");
  expect((thrown as CondaMcpError).message).toContain(message);
});

test("usage lists every option, the policy ones included", () => {
  const text = usage("1.2.3");
  for (const option of [
    "--conda",
    "--allow-write",
    "--allow-destructive",
    "--allow-exec",
    "--tools",
    "--timeout",
    "--no-cache",
    "--schema-detail",
  ]) {
    expect(text).toContain(option);
  }
});
