import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { CatalogCommand } from "../catalog/catalog-types.ts";
import type { Heartbeat } from "../execute/run-process.ts";
import type { PolicyOptions } from "../policy/check-policy.ts";
import type { FactsAnswer } from "../policy/find-call-facts.ts";
import type { ExecutionResult } from "../result/execution-result.ts";
import type { ToolEntry } from "./build-tool-registry.ts";
import type { ExecuteTool } from "./execute-tool.ts";

/** Whether a call may run, decided in its turn of the queue, when conda's facts are current. */
export type Admission =
  | { readonly allowed: false; readonly message: string }
  | {
      readonly allowed: true;
      /** The call may change an environment: a cancel waits for conda's rollback. */
      readonly changes: boolean;
      /** How summaries and progress name the call (`conda remove`). */
      readonly label: string;
    };

/** Runs conda with argv after the executable once admitted; queued, capped, killable. */
export type RunConda = (
  argv: string[],
  options: {
    /** The tool that was called, for hosts that observe executions. */
    tool: string;
    cwd?: string;
    stdin?: string;
    timeoutMs: number;
    signal: AbortSignal;
    onHeartbeat?: (heartbeat: Heartbeat, label: string) => void;
    admit: (signal: AbortSignal) => Promise<Admission>;
  },
) => Promise<{ ran: ExecutionResult; label: string } | { refused: string }>;

/** Asks the target's conda what it would do with argv, run in cwd (the call's directory). */
export type FindFacts = (
  argv: readonly string[],
  cwd: string,
  signal: AbortSignal,
) => Promise<FactsAnswer>;

/** Answers a conda_cli_command call (input already received as JSON). */
export type CliCommandHandler = (input: unknown) => Promise<CallToolResult>;

/** Everything the MCP server serves, built once at startup. */
export interface ServerDeps {
  version: string;
  entries: ToolEntry[];
  /**
   * Options described once in the instructions instead of in each tool (see
   * sharedOptionGlossary), made on first use: a call needs none of it.
   */
  glossary: () => ReadonlyMap<string, string>;
  /** Every cataloged command, for resolving raw command lines. */
  commands: CatalogCommand[];
  /** The conda://capabilities document (built once, on first use). */
  capabilitiesJson: () => string;
  policy: PolicyOptions;
  findFacts: FindFacts;
  /** The server's working directory: relative paths of calls are resolved against it. */
  cwd: string;
  timeoutMs: number;
  /** conda_execute's input schema, for its calls. */
  executeTool: ExecuteTool;
  maxOutputBytes: number;
  runConda: RunConda;
  /** Recomputes the discovery fingerprint (cheap, no Python). */
  currentFingerprint: () => string;
  startupFingerprint: string;
  cliCommand: CliCommandHandler | null;
  /** Where diagnostics go (stderr); never stdout. */
  log: (line: string) => void;
}
