import type { Param } from "../catalog/catalog-types.ts";
import { classifyCall } from "./classify-call.ts";
import type { CommandClass } from "./command-class.ts";
import { parseCommandArgs } from "./parse-command-args.ts";

/** What the catalog says about the leading words of a raw command line. */
export interface ArgvCommandMatch {
  /** The canonical path (aliases resolved: `uninstall` → `["remove"]`). */
  readonly path: readonly string[];
  /** How many of the given tokens the path used. */
  readonly consumed: number;
  /** The command's params, for an exact parse of its options; without them a fallback is used. */
  readonly params?: readonly Param[];
  /** True when an external plugin registered the command. */
  readonly external?: boolean;
}

/** Finds the longest command path at the start of `tokens` (words only, no options). */
export type CatalogLookup = (tokens: readonly string[]) => ArgvCommandMatch | null;

/** The class of a raw command line, the command it names, and its arguments for `guardCall`. */
export interface ArgvClassification {
  readonly cls: CommandClass;
  /** Null when the command line names no known command. */
  readonly path: readonly string[] | null;
  /** Best-effort arguments keyed like tool arguments. */
  readonly args: Record<string, unknown>;
  readonly unknownOptions: readonly string[];
}

// The root parser's flags; conda also pre-parses them anywhere before a `--`.
const GLOBAL_FLAGS = new Set(["--verbose", "--json", "--debug", "--trace", "--no-plugins"]);
const HELP_AND_VERSION = new Set(["-h", "--help", "-V", "--version"]);

function isGlobalFlag(token: string): boolean {
  return GLOBAL_FLAGS.has(token) || /^-v+$/.test(token);
}

/**
 * Classifies a raw conda command line for `conda_execute`: skips global flags, finds the command
 * path through the catalog (stopping at the first option-looking token), parses the rest as
 * best it can and classifies the call. A line naming no known command is `exec`; one made only
 * of global, help and version flags (or nothing) is `read`, since conda only prints.
 */
export function classifyArgv(argv: readonly string[], lookup: CatalogLookup): ArgvClassification {
  const words: { token: string; index: number }[] = [];
  for (const [index, token] of argv.entries()) {
    if (isGlobalFlag(token)) continue;
    if (token === "--" || token.startsWith("-")) break;
    words.push({ token, index });
  }

  if (words.length === 0) {
    const onlyFlags = argv.every((t) => isGlobalFlag(t) || HELP_AND_VERSION.has(t));
    return { cls: onlyFlags ? "read" : "exec", path: null, args: {}, unknownOptions: [] };
  }

  const match = lookup(words.map((w) => w.token));
  const last = match && match.consumed > 0 ? words[match.consumed - 1] : undefined;
  if (!match || !last) return { cls: "exec", path: null, args: {}, unknownOptions: [] };

  const parsed = parseCommandArgs(argv.slice(last.index + 1), match.params ?? null, match.path);
  const cls = classifyCall(match.path, parsed.args, { external: match.external ?? false });
  return { cls, path: match.path, args: parsed.args, unknownOptions: parsed.unknownOptions };
}
