import type { CommandClass } from "./command-class.ts";
import { type CommandOrigin, lookupCommandPolicy } from "./lookup-command-policy.ts";

/** Tool arguments keyed by property name (`dry_run`, `file`, `set`, `packages`). */
export type CallArgs = Readonly<Record<string, unknown>>;

type Rule = (args: CallArgs, base: CommandClass) => CommandClass;

/** An argument counts as given unless absent, null or false (empty lists still count). */
function given(args: CallArgs, key: string): boolean {
  const value = args[key];
  return value !== undefined && value !== null && value !== false;
}

// With --dry-run conda stops before changing anything (it raises DryRunExit at the first
// confirmation); solving may still reach the network, which the tool's hints keep saying.
const dryRunReads: Rule = (args, base) => (args.dry_run === true ? "read" : base);

// Arguments that only pick which file or scope `config` applies to, or how it reports.
const CONFIG_NEUTRAL = new Set([
  "system",
  "env",
  "file",
  "name",
  "prefix",
  "force",
  "json",
  "console",
  "verbose",
  "quiet",
  "debug",
  "trace",
  "no_plugins",
]);

/** Whether the call asks `config` to read: conda then leaves its rc file alone. */
function configReads(args: CallArgs): boolean {
  const get = args.get;
  return (
    given(args, "show") ||
    given(args, "show_sources") ||
    given(args, "describe") ||
    given(args, "validate") ||
    (Array.isArray(get) && get.length > 0)
  );
}

// conda rewrites its rc file (creating it when absent) whenever no read action is given: a
// plain `conda config` or `conda config --get` writes ~/.condarc. Any write action (`set`,
// `append`, `remove`, ...) and any argument this table does not know make it a write too.
const configRule: Rule = (args) => {
  for (const key of Object.keys(args)) {
    if (!given(args, key) || CONFIG_NEUTRAL.has(key)) continue;
    if (["show", "show_sources", "describe", "validate", "get"].includes(key)) continue;
    return "write";
  }
  return configReads(args) ? "read" : "write";
};

// Rolling back to a revision and pruning remove packages, which a write alone may not do.
const removesPackages =
  (key: string): Rule =>
  (args, base) =>
    given(args, key) ? "destructive" : base;

const RULES: ReadonlyMap<string, Rule> = new Map<string, Rule>([
  ["install", (args, base) => dryRunReads(args, removesPackages("revision")(args, base))],
  ["create", dryRunReads],
  ["update", dryRunReads],
  ["remove", dryRunReads],
  ["env remove", dryRunReads],
  ["clean", dryRunReads],
  // rename prints its clone and rm steps instead of running them under --dry-run.
  ["rename", dryRunReads],
  ["init", dryRunReads],
  // `env create --yes` deletes an existing target directory before it looks at --dry-run.
  ["env create", (args, base) => (args.dry_run === true && !given(args, "yes") ? "read" : base)],
  ["config", configRule],
  ["env update", removesPackages("prune")],
  ["export", (args) => (given(args, "file") ? "write" : "read")],
  ["env export", (args) => (given(args, "file") ? "write" : "read")],
  ["doctor", (args) => (given(args, "fix") && args.dry_run !== true ? "write" : "read")],
  ["check", (args) => (given(args, "fix") && args.dry_run !== true ? "write" : "read")],
  // conda checks --which, then --reset, then --untracked; --reset wins here whatever the order.
  [
    "package",
    (args) => {
      if (given(args, "reset")) return "destructive";
      return given(args, "which") || given(args, "untracked") ? "read" : "write";
    },
  ],
]);

/**
 * The class of one call, from its command's reviewed class refined by the call's own arguments
 * where conda's behaviour depends on them. Unknown and external plugin commands are `exec`.
 */
export function classifyCall(
  path: readonly string[],
  args: CallArgs,
  origin: CommandOrigin = {},
): CommandClass {
  const policy = lookupCommandPolicy(path, origin);
  if (!policy.known) return "exec";
  const rule = RULES.get(path.join(" "));
  const cls = rule ? rule(args, policy.baseClass) : policy.baseClass;
  // A frozen environment was marked by its owner as not to be changed; overriding that is
  // more than a routine change.
  if (cls === "write" && given(args, "override_frozen")) return "destructive";
  return cls;
}
