/** The MCP clients `conda-mcp setup` can configure. */
export type SetupClient = "claude-desktop" | "claude-code" | "vscode" | "cursor" | "gemini";

/** Which of a client's configuration files setup writes: the user's own, or the project's. */
export type SetupScope = "user" | "project";

/** One client `setup` knows: its word on the command line, its name in messages, its scopes. */
export interface SetupClientInfo {
  readonly name: SetupClient;
  readonly label: string;
  /** False when the client reads one file per user and none per project (Claude Desktop). */
  readonly projectScope: boolean;
}

/** Every client `setup` can configure, in the order `--help` lists them. */
export const SETUP_CLIENTS: readonly SetupClientInfo[] = [
  { name: "claude-desktop", label: "Claude Desktop", projectScope: false },
  { name: "claude-code", label: "Claude Code", projectScope: true },
  { name: "vscode", label: "VS Code", projectScope: true },
  { name: "cursor", label: "Cursor", projectScope: true },
  { name: "gemini", label: "Gemini CLI", projectScope: true },
];

/** The scopes `--scope` takes. */
export const SETUP_SCOPES: readonly SetupScope[] = ["user", "project"];
