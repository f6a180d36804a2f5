import type { Command } from "./startup-option.ts";

/** The command words; without one the program serves MCP. */
export const COMMANDS: readonly Command[] = [
  { name: "catalog", mode: "catalog", summary: "print the tools and raw-only commands, then exit" },
];
