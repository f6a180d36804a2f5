/** One startup option this stage defines, for `--help`, the README and the option parser. */
export interface PolicyStartupOption {
  readonly flag: string;
  /** How `--help` shows it: `--tools LIST`. */
  readonly usage: string;
  /** The Config field it sets. */
  readonly key: "allowWrite" | "allowDestructive" | "allowExec" | "readOnlyTools" | "tools";
  /** `boolean` takes no value; `list` takes a comma-separated value (see `parseToolList`). */
  readonly kind: "boolean" | "list";
  readonly help: string;
}

/** Every startup option of the policy stage, in the order `--help` shows them. */
export const POLICY_STARTUP_OPTIONS: readonly PolicyStartupOption[] = [
  {
    flag: "--allow-write",
    usage: "--allow-write",
    key: "allowWrite",
    kind: "boolean",
    help:
      "allow calls that change environments, configuration or files (install, create, update, " +
      "config --set, export --file); without it they are refused, --dry-run variants still run",
  },
  {
    flag: "--allow-destructive",
    usage: "--allow-destructive",
    key: "allowDestructive",
    kind: "boolean",
    help:
      "allow calls that delete or reach outside conda (remove, env remove, rename, clean, init); " +
      "implies --allow-write; removing the base environment or a non-environment folder stays refused",
  },
  {
    flag: "--allow-exec",
    usage: "--allow-exec",
    key: "allowExec",
    kind: "boolean",
    help:
      "allow running programs and plugin code (run, external plugin commands) and list " +
      "conda_execute, whose calls also need the option of the command they name; implies nothing else",
  },
  {
    flag: "--read-only-tools",
    usage: "--read-only-tools",
    key: "readOnlyTools",
    kind: "boolean",
    help:
      "list only tools whose plain call reads (info, list, search, config, export, ...), for " +
      "clients that limit the tool count; their writing variants still need --allow-write",
  },
  {
    flag: "--tools",
    usage: "--tools LIST",
    key: "tools",
    kind: "list",
    help:
      "list only these tools: comma-separated tool names (conda_env_list) or command paths " +
      "(env list); combined with --read-only-tools both must hold",
  },
];
