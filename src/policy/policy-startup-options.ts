import type { StartupOption } from "../config/config-types.ts";
import { invalidOption } from "../errors.ts";
import { parseToolList } from "./select-tools.ts";

/** Every startup option of the policy stage, in the order `--help` shows them. */
export const POLICY_STARTUP_OPTIONS: readonly StartupOption[] = [
  {
    flags: ["--allow-write"],
    library: { name: "allowWrite" },
    help:
      "allow calls that change environments, configuration or files (install, create, update, " +
      "config --set, export --file); without it they are refused, --dry-run variants still run",
    sets: { allowWrite: true },
  },
  {
    flags: ["--allow-destructive"],
    library: { name: "allowDestructive" },
    help:
      "allow calls that delete or reach outside conda (remove, env remove, rename, clean, init); " +
      "implies --allow-write; removing the base environment or a non-environment folder stays refused",
    sets: { allowDestructive: true, allowWrite: true },
  },
  {
    flags: ["--allow-exec"],
    library: { name: "allowExec" },
    help:
      "allow running programs and plugin code (run, external plugin commands) and list " +
      "conda_execute, whose calls also need the option of the command they name; implies nothing else",
    sets: { allowExec: true },
  },
  {
    flags: ["--read-only-tools"],
    library: { name: "readOnlyTools" },
    help:
      "list only tools whose plain call reads (info, list, search, config, export, ...), for " +
      "clients that limit the tool count; their writing variants still need --allow-write",
    sets: { readOnlyTools: true },
  },
  {
    flags: ["--tools"],
    library: { name: "tools" },
    metavar: "LIST",
    help:
      "list only these tools: comma-separated tool names (conda_env_list) or command paths " +
      "(env list); combined with --read-only-tools both must hold",
    parse: (value, flag) => {
      const tools = parseToolList(value);
      if (tools.length === 0) throw invalidOption(`${flag} needs at least one tool name`);
      return { tools };
    },
  },
];
