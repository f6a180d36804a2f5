import { SETUP_CLIENTS } from "../setup/setup-clients.ts";
import type { Command } from "./startup-option.ts";

/** The command words; without one the program serves MCP. */
export const COMMANDS: readonly Command[] = [
  { name: "catalog", mode: "catalog", summary: "print the tools and raw-only commands, then exit" },
  {
    name: "setup",
    mode: "setup",
    summary: `add this server, with the serving options given, to CLIENT's MCP configuration (${SETUP_CLIENTS.map((c) => c.name).join(", ")}), then exit`,
    operand: {
      metavar: "CLIENT",
      choices: SETUP_CLIENTS.map((client) => client.name),
      parse: (word) => ({
        setupClient: SETUP_CLIENTS.find((client) => client.name === word)?.name ?? null,
      }),
    },
  },
];
