import { RESULT_FIELDS } from "../result/execution-result-json-schema.ts";
import { MAX_ARGV_BYTES } from "../schema/validate-args.ts";
import type { ServerDeps } from "./server-deps.ts";

/**
 * What the server tells a client about itself in its `initialize` answer: its name and version,
 * its capabilities and its instructions. The MCP SDK's Server is built from it, and the start-up
 * answerer answers a fresh handshake with it, before the SDK is loaded (see composeHandshake).
 */
export function serverIdentity(deps: Pick<ServerDeps, "version" | "glossary">) {
  return {
    serverInfo: { name: "conda-mcp", version: deps.version },
    capabilities: {
      tools: { listChanged: false },
      resources: { subscribe: false, listChanged: false },
    },
    instructions: serverInstructions(deps.glossary()),
  };
}

/** What a client shows its model once: how the tools work and the options they share. */
function serverInstructions(glossary: ReadonlyMap<string, string>): string {
  const lines = [
    "Each conda_* tool runs one conda command with typed arguments; the server checks every rule and names the JSON path of a wrong value.",
    // The one bound no JSON Schema keyword can state: it is of the whole call.
    `A call's arguments may make at most ${MAX_ARGV_BYTES} bytes of command line in all.`,
    "Read conda://capabilities for the served conda, its plugins, every command's complete arguments and help, and any commands only conda_execute can reach.",
    RESULT_FIELDS,
  ];
  if (glossary.size > 0) {
    lines.push("Options many tools share, described here once:");
    for (const [name, sentence] of glossary) lines.push(`- ${name}: ${sentence}`);
  }
  return lines.join("\n");
}
