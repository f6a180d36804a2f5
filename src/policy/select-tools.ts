import type { CommandClass } from "./check-policy.ts";

/** A tool as the surface sees it. */
export interface SelectableTool {
  /** MCP tool name: `conda_env_list`. */
  readonly name: string;
  /** Canonical command path; null for `conda_execute`, which names no single command. */
  readonly path: readonly string[] | null;
  /** The tool's base class (`lookupCommandPolicy(path).baseClass`; `exec` for `conda_execute`). */
  readonly baseClass: CommandClass;
}

/** Startup options that narrow the listed tools. */
export interface SurfaceOptions {
  /** `--read-only-tools`: list only tools whose base class is `read`. */
  readonly readOnlyTools: boolean;
  /** `--tools`: tool names or command paths to list; null lists every tool. */
  readonly tools: readonly string[] | null;
  /** `--allow-exec`: `conda_execute` is listed only with it. */
  readonly allowExec: boolean;
}

/** The tools to list, in their given order, and `--tools` entries that matched no tool. */
export interface ToolSelection<T extends SelectableTool> {
  readonly tools: T[];
  /** Unmatched `--tools` entries: startup should stop and say so. */
  readonly unmatched: string[];
}

/** Splits a `--tools` value: comma-separated, blanks and surrounding spaces dropped. */
export function parseToolList(value: string): string[] {
  return value
    .split(",")
    .map((entry) => entry.trim().replace(/\s+/g, " "))
    .filter((entry) => entry.length > 0);
}

/**
 * Which tools are listed. Tools whose class is disabled stay listed, so an agent learns they
 * exist and gets a refusal naming the startup option; only the narrowing options hide tools,
 * and both narrow (a tool must pass each given one). `conda_execute` (no path) is listed only
 * with `--allow-exec`, since no call of it can run without. A tool that is not listed should
 * not be callable either.
 */
export function selectTools<T extends SelectableTool>(
  tools: readonly T[],
  options: SurfaceOptions,
): ToolSelection<T> {
  const wanted = options.tools === null ? null : new Set(options.tools);
  const selected = tools.filter((tool) => {
    if (tool.path === null && !options.allowExec) return false;
    if (options.readOnlyTools && tool.baseClass !== "read") return false;
    if (wanted === null) return true;
    return wanted.has(tool.name) || (tool.path !== null && wanted.has(tool.path.join(" ")));
  });
  const known = new Set(tools.flatMap((t) => [t.name, ...(t.path ? [t.path.join(" ")] : [])]));
  const unmatched = (options.tools ?? []).filter((entry) => !known.has(entry));
  return { tools: selected, unmatched };
}
