import path from "node:path";
import type { Config } from "../config/config-types.ts";
import type { SetupClient, SetupScope } from "./setup-clients.ts";

type PlatformPath = typeof path.posix;

/** A client's MCP configuration file: where it is and how its server entries look. */
export interface ClientFile {
  /** Absolute path of the file. */
  readonly path: string;
  /** The top-level key whose object maps server names to their entries. */
  readonly serversKey: "mcpServers" | "servers";
  /** The entry's `"type": "stdio"`, for clients that write or require it. */
  readonly stdioType: boolean;
  /** The client reads the file as JSON with comments (and trailing commas). */
  readonly jsonc: boolean;
}

type Where = Pick<Config, "env" | "platform" | "home" | "cwd">;

/**
 * The per-user application-data folder of an Electron app: `%APPDATA%` on Windows,
 * `~/Library/Application Support` on macOS, `$XDG_CONFIG_HOME` or `~/.config` elsewhere.
 */
function appData({ env, platform, home }: Where, paths: PlatformPath): string {
  if (platform === "win32") return env.APPDATA || paths.join(home, "AppData", "Roaming");
  if (platform === "darwin") return paths.join(home, "Library", "Application Support");
  return env.XDG_CONFIG_HOME || paths.join(home, ".config");
}

/** The user-scope file of each client; each comment names whose documentation says so. */
function userFile(client: SetupClient, where: Where, paths: PlatformPath): string {
  const { env, home } = where;
  switch (client) {
    // Claude Desktop: %APPDATA%\Claude and ~/Library/Application Support/Claude; it has no
    // Linux release, and the community Linux builds read ~/.config/Claude.
    case "claude-desktop":
      return paths.join(appData(where, paths), "Claude", "claude_desktop_config.json");
    // Claude Code keeps user-scope servers in the top level of ~/.claude.json, or of
    // $CLAUDE_CONFIG_DIR/.claude.json when that is set.
    case "claude-code":
      return paths.join(env.CLAUDE_CONFIG_DIR || home, ".claude.json");
    // VS Code's default profile; VSCODE_APPDATA replaces the application-data folder.
    case "vscode":
      return paths.join(env.VSCODE_APPDATA || appData(where, paths), "Code", "User", "mcp.json");
    case "cursor":
      return paths.join(home, ".cursor", "mcp.json");
    // GEMINI_CLI_HOME replaces the home folder Gemini CLI keeps .gemini in.
    case "gemini":
      return paths.join(env.GEMINI_CLI_HOME || home, ".gemini", "settings.json");
  }
}

/** The project-scope file of each client, relative to the project's root folder. */
const PROJECT_FILES: Record<Exclude<SetupClient, "claude-desktop">, readonly string[]> = {
  "claude-code": [".mcp.json"],
  vscode: [".vscode", "mcp.json"],
  cursor: [".cursor", "mcp.json"],
  gemini: [".gemini", "settings.json"],
};

/**
 * Where `client` keeps its MCP servers for `scope` (the project is the working directory),
 * and the shape of its entries. Paths come from `where` alone, never from this process.
 */
export function locateClientFile(client: SetupClient, scope: SetupScope, where: Where): ClientFile {
  const paths = where.platform === "win32" ? path.win32 : path.posix;
  const relative = client === "claude-desktop" ? undefined : PROJECT_FILES[client];
  const file =
    scope === "project" && relative !== undefined
      ? paths.join(where.cwd, ...relative)
      : userFile(client, where, paths);
  return {
    path: paths.resolve(where.cwd, file),
    serversKey: client === "vscode" ? "servers" : "mcpServers",
    stdioType: client === "vscode" || client === "claude-code",
    jsonc: client === "vscode" || client === "gemini",
  };
}
