import { expect, test } from "bun:test";
import type { Config } from "../../src/config/config-types.ts";
import { locateClientFile } from "../../src/setup/locate-client-file.ts";
import type { SetupClient } from "../../src/setup/setup-clients.ts";

type Where = Pick<Config, "env" | "platform" | "home" | "cwd">;

const LINUX: Where = { env: {}, platform: "linux", home: "/home/u", cwd: "/work/proj" };
const MAC: Where = { env: {}, platform: "darwin", home: "/Users/u", cwd: "/work/proj" };
const WINDOWS: Where = {
  env: { APPDATA: "C:\\Users\\u\\AppData\\Roaming" },
  platform: "win32",
  home: "C:\\Users\\u",
  cwd: "C:\\work\\proj",
};

const HOSTS = { linux: LINUX, macOS: MAC, Windows: WINDOWS };

test.each<[SetupClient, keyof typeof HOSTS, string]>([
  ["claude-desktop", "linux", "/home/u/.config/Claude/claude_desktop_config.json"],
  [
    "claude-desktop",
    "macOS",
    "/Users/u/Library/Application Support/Claude/claude_desktop_config.json",
  ],
  [
    "claude-desktop",
    "Windows",
    "C:\\Users\\u\\AppData\\Roaming\\Claude\\claude_desktop_config.json",
  ],
  ["claude-code", "linux", "/home/u/.claude.json"],
  ["claude-code", "Windows", "C:\\Users\\u\\.claude.json"],
  ["vscode", "linux", "/home/u/.config/Code/User/mcp.json"],
  ["vscode", "macOS", "/Users/u/Library/Application Support/Code/User/mcp.json"],
  ["vscode", "Windows", "C:\\Users\\u\\AppData\\Roaming\\Code\\User\\mcp.json"],
  ["cursor", "macOS", "/Users/u/.cursor/mcp.json"],
  ["cursor", "Windows", "C:\\Users\\u\\.cursor\\mcp.json"],
  ["gemini", "linux", "/home/u/.gemini/settings.json"],
  ["gemini", "Windows", "C:\\Users\\u\\.gemini\\settings.json"],
])("the user file of %s on %s is %s", (client, host, expected) => {
  expect(locateClientFile(client, "user", HOSTS[host]).path).toBe(expected);
});

test.each<[SetupClient, Record<string, string>, string]>([
  ["claude-desktop", { XDG_CONFIG_HOME: "/xdg" }, "/xdg/Claude/claude_desktop_config.json"],
  ["vscode", { XDG_CONFIG_HOME: "/xdg" }, "/xdg/Code/User/mcp.json"],
  [
    "vscode",
    { VSCODE_APPDATA: "/portable", XDG_CONFIG_HOME: "/xdg" },
    "/portable/Code/User/mcp.json",
  ],
  ["claude-code", { CLAUDE_CONFIG_DIR: "/cc" }, "/cc/.claude.json"],
  ["gemini", { GEMINI_CLI_HOME: "/g" }, "/g/.gemini/settings.json"],
  ["cursor", { XDG_CONFIG_HOME: "/xdg" }, "/home/u/.cursor/mcp.json"],
])("%s honours the variables it reads (%j): %s", (client, env, expected) => {
  expect(locateClientFile(client, "user", { ...LINUX, env }).path).toBe(expected);
});

test("without APPDATA, Windows' roaming folder is found under the home folder", () => {
  const where = { ...WINDOWS, env: {} };
  expect(locateClientFile("vscode", "user", where).path).toBe(
    "C:\\Users\\u\\AppData\\Roaming\\Code\\User\\mcp.json",
  );
});

test.each<[SetupClient, string, string]>([
  ["claude-code", "/work/proj/.mcp.json", "C:\\work\\proj\\.mcp.json"],
  ["vscode", "/work/proj/.vscode/mcp.json", "C:\\work\\proj\\.vscode\\mcp.json"],
  ["cursor", "/work/proj/.cursor/mcp.json", "C:\\work\\proj\\.cursor\\mcp.json"],
  ["gemini", "/work/proj/.gemini/settings.json", "C:\\work\\proj\\.gemini\\settings.json"],
])("the project file of %s is under the working directory: %s", (client, posix, windows) => {
  expect(locateClientFile(client, "project", LINUX).path).toBe(posix);
  expect(locateClientFile(client, "project", WINDOWS).path).toBe(windows);
});

test.each<[SetupClient, string, boolean, boolean]>([
  ["claude-desktop", "mcpServers", false, false],
  ["claude-code", "mcpServers", true, false],
  ["vscode", "servers", true, true],
  ["cursor", "mcpServers", false, false],
  ["gemini", "mcpServers", false, true],
])(
  "%s keeps servers under %s (type stdio: %p, comments allowed: %p)",
  (client, key, type, jsonc) => {
    expect(locateClientFile(client, "user", LINUX)).toMatchObject({
      serversKey: key,
      stdioType: type,
      jsonc,
    });
  },
);
