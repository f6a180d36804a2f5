import type {
  IntrospectionFacts,
  RawAction,
  RawParser,
  RawPreParser,
} from "../introspection-payload.ts";
import { assignToolNames } from "./assign-tool-names.ts";
import type {
  Catalog,
  CatalogCommand,
  Diagnostic,
  ExclusiveGroup,
  Param,
  ParamShape,
} from "./catalog-types.ts";
import { type ActionVerdict, classifyAction } from "./classify-action.ts";
import { redactSecrets } from "./redact-secrets.ts";

type Redact = (text: string) => string;

/** What every command of one tree is described with. */
interface Context {
  diagnostics: Diagnostic[];
  redact: Redact;
  preParser: RawPreParser | null;
  /** Each action's facts, read once: parsers share the descriptions of the options they repeat. */
  facts: Map<RawAction, ActionFacts>;
}

/** What an action gives every command that has it, whatever its place there. */
interface ActionFacts {
  /** Its verdict; a param's shape has the choices that would show a credential dropped. */
  verdict: ActionVerdict;
  /** Its property name before a command's other params can make it taken. */
  baseName: string;
  description: string;
  deprecated: string | null;
  defaultValue: unknown;
}

// conda's `activate`/`deactivate` only print "use the shell function": useless to an agent.
const MOCK_COMMANDS = new Set(["activate", "deactivate"]);

/**
 * The command conda-mcp's own conda plugin registers (`conda mcp` starts this server). As a
 * tool it would start a second server inside a call, so it is never served, whoever installs it.
 */
export const SELF_COMMAND = "mcp";

/** Options of {@link buildCatalog}. */
export interface BuildCatalogOptions {
  /** Values to redact from every text taken from the target (see credentialValues). */
  secretValues?: readonly string[];
  /** conda's global pre-parser (IntrospectionResult.pre_parser); passed-through items it would take are refused. */
  preParser?: RawPreParser | null;
}

// conda's own `run` strips one leading `--` from its command (conda/cli/main_run.py).
const STRIPS_SEPARATOR = new Set(["run"]);

/** A catalog built a top-level command at a time (see createCatalogBuilder). */
export interface CatalogBuilder {
  /** Reads one of the root parser's subcommands, with everything below it. */
  add(command: RawParser): void;
  /** The catalog of the commands added, their tool names given. */
  finish(): Catalog;
}

/**
 * Builds the catalog of terminal commands from the introspected argparse tree. Text taken from
 * the target is redacted (URL credentials and the given secret values), and choices that carry
 * a credential are dropped, leaving a plain value that conda checks itself.
 */
export function buildCatalog(root: RawParser, options: BuildCatalogOptions = {}): Catalog {
  const builder = createCatalogBuilder(options);
  for (const sub of root.subcommands) builder.add(sub);
  return builder.finish();
}

/**
 * buildCatalog a top-level command at a time, so that a start reads each command while conda's
 * Python still describes the next; only the tool names wait for the last one.
 */
export function createCatalogBuilder(options: BuildCatalogOptions = {}): CatalogBuilder {
  const secrets = options.secretValues ?? [];
  const redact = (text: string) => redactSecrets(text, secrets);
  const diagnostics: Diagnostic[] = [];
  const commands: CatalogCommand[] = [];
  const context: Context = {
    diagnostics,
    redact,
    preParser: options.preParser ?? null,
    facts: new Map(),
  };
  return {
    add: (command) => collectCommands(command, [], commands, context),
    finish() {
      const tools = commands.filter((c) => c.status === "tool");
      const names = assignToolNames(tools.map((c) => c.path));
      for (const command of tools) command.toolName = names.get(command.path.join(" ")) ?? null;
      return { commands, diagnostics };
    },
  };
}

/** The subparsers action of a parser, if it has one. */
function subparsersOf(parser: RawParser): RawAction | undefined {
  return parser.actions.find((a) => a.subparsers !== undefined);
}

/** Walks the tree; a parser is a command when it has no subcommands or can run without one. */
function collectCommands(
  parser: RawParser,
  aliasPrefixes: string[][],
  out: CatalogCommand[],
  context: Context,
): void {
  const aliases = aliasPathsOf(parser, aliasPrefixes);
  const subparsers = subparsersOf(parser);
  const ownParams = parser.actions.filter((a) => factsOf(a, context).verdict.kind !== "skip");
  const hasChildren = parser.subcommands.length > 0;

  if (hasChildren) {
    const childRequired = subparsers?.subparsers?.required ?? false;
    // An optional subcommand with options of its own makes the parent runnable by itself;
    // without options it only prints help (conda's `env`, `plugins`), which no agent needs.
    if (!childRequired && ownParams.length > 0)
      out.push(toCatalogCommand(parser, aliases, context));
    if (ownParams.some((a) => a.required)) {
      context.diagnostics.push({
        path: parser.path,
        level: "warning",
        message:
          "required options before the subcommand are not served; its subcommands are raw-only",
      });
    }
    for (const sub of parser.subcommands) {
      const before = out.length;
      collectCommands(sub, aliases, out, context);
      if (ownParams.some((a) => a.required)) {
        for (const command of out.slice(before))
          markRawOnly(command, "its parent command requires options that tools cannot pass");
      }
    }
    return;
  }
  out.push(toCatalogCommand(parser, aliases, context));
}

/** Alias paths of a parser: its names under its parent's canonical path and alias paths. */
function aliasPathsOf(parser: RawParser, parentAliases: string[][]): string[][] {
  const prefixes = [parser.path.slice(0, -1), ...parentAliases];
  const canonical = parser.path.join(" ");
  const paths = new Map<string, string[]>();
  for (const prefix of prefixes) {
    // `command` holds the whole path for nested parsers; the last path token is the name.
    for (const name of [parser.path[parser.path.length - 1] ?? parser.command, ...parser.aliases]) {
      const path = [...prefix, name];
      const key = path.join(" ");
      if (key !== canonical) paths.set(key, path);
    }
  }
  return [...paths.values()];
}

function markRawOnly(command: CatalogCommand, reason: string): void {
  if (command.status !== "tool") return;
  command.status = "raw_only";
  command.reason = reason;
}

/** A command before its params are read: names, texts and the plugin that registered it. */
function emptyCommand(parser: RawParser, aliases: string[][], redact: Redact): CatalogCommand {
  return {
    path: parser.path,
    aliases,
    toolName: null,
    status: "tool",
    reason: null,
    summary: redact(firstLine(parser.help ?? parser.plugin?.summary ?? parser.description ?? "")),
    description: redact((parser.description ?? parser.help ?? "").trim()),
    params: [],
    exclusiveGroups: [],
    plugin: parser.plugin
      ? {
          name: parser.plugin.plugin_name ?? parser.plugin.name,
          distribution: parser.plugin.distribution ?? null,
          external: parser.plugin.external ?? false,
        }
      : null,
    hiddenOptions: 0,
  };
}

/** The one param of a greedy plugin parser: its raw arguments. */
function greedyArgs(preParser: Context["preParser"]): Param {
  return {
    name: "args",
    dest: "_args",
    option: null,
    optionStrings: [],
    shape: { kind: "passthrough", greedy: true, separator: false, preParser },
    required: false,
    description:
      "Arguments passed to the plugin as they are; this plugin declares no typed options.",
    deprecated: null,
    exclusiveGroup: null,
  };
}

/** Puts a param into its mutually exclusive group, creating the group on its first member. */
function joinGroup(
  command: CatalogCommand,
  param: Param,
  action: RawAction,
  groupIndex: Map<number, number>,
): void {
  const group = action.mutually_exclusive_group;
  if (!group) return;
  let index = groupIndex.get(group.index);
  if (index === undefined) {
    index = command.exclusiveGroups.length;
    groupIndex.set(group.index, index);
    command.exclusiveGroups.push({ members: [], required: group.required });
  }
  (command.exclusiveGroups[index] as ExclusiveGroup).members.push(param.name);
  param.exclusiveGroup = index;
}

/** Reads the parser's actions into the command's params: options first, then positionals. */
function addParams(command: CatalogCommand, parser: RawParser, context: Context): void {
  const { diagnostics, redact, preParser } = context;
  const taken = new Set<string>();
  const groupIndex = new Map<number, number>();
  const options: Param[] = [];
  const positionals: Param[] = [];
  for (const action of parser.actions) {
    const facts = factsOf(action, context);
    const { verdict } = facts;
    if (verdict.kind === "skip") continue;
    if (verdict.kind === "unsupported") {
      markRawOnly(command, redact(verdict.reason));
      diagnostics.push({
        path: parser.path,
        level: "warning",
        message: `raw-only: ${redact(verdict.reason)}`,
      });
      continue;
    }
    if (action.help_suppressed && action.option_strings.length > 0 && !action.required) {
      command.hiddenOptions++;
      continue;
    }
    let shape = verdict.shape;
    if (shape.kind === "passthrough") {
      const separator = parser.plugin === null && STRIPS_SEPARATOR.has(parser.path.join(" "));
      shape = { ...shape, separator, preParser: separator ? null : preParser };
    }
    const param = toParam(action, facts, shape, taken);
    joinGroup(command, param, action, groupIndex);
    (param.option === null ? positionals : options).push(param);
  }
  command.params = [...options, ...positionals];
  if (positionals.some((p) => p.shape.kind === "passthrough") && options.some(isVariableLength)) {
    // Nothing could end such an option's values before the REMAINDER list without a `--`,
    // and conda would keep that `--` in the list.
    markRawOnly(command, "a REMAINDER positional follows options with a variable number of values");
  }
}

/** One command: its params, groups, and whether it can be a typed tool. */
function toCatalogCommand(
  parser: RawParser,
  aliases: string[][],
  context: Context,
): CatalogCommand {
  const command = emptyCommand(parser, aliases, context.redact);
  if (MOCK_COMMANDS.has(parser.path.join(" "))) {
    command.status = "excluded";
    command.reason = "conda's mock command: activation needs the shell function, not a subprocess";
    return command;
  }
  if (parser.path.join(" ") === SELF_COMMAND) {
    command.status = "excluded";
    command.reason = "conda-mcp's own command: `conda mcp` starts this server, not a conda task";
    context.diagnostics.push({
      path: parser.path,
      level: "info",
      message: "not a tool: `conda mcp` is conda-mcp itself (its conda plugin)",
    });
    return command;
  }
  if (parser.greedy) {
    command.params.push(greedyArgs(context.preParser));
    return command;
  }
  addParams(command, parser, context);
  command.exclusiveGroups = command.exclusiveGroups.filter(
    (g) => g.members.length > 1 || g.required,
  );
  reindexGroups(command);
  checkPositionalOrder(command);
  return command;
}

/** Options whose value list ends only at the next option-looking token. */
export function isVariableLength(param: Param): boolean {
  const shape = param.shape;
  if (shape.kind === "extend_const") return true;
  if (shape.kind !== "option") return false;
  return shape.arity.kind === "any" || shape.arity.kind === "some";
}

/** Keeps param.exclusiveGroup pointing at the filtered groups. */
function reindexGroups(command: CatalogCommand): void {
  for (const param of command.params) {
    if (param.exclusiveGroup === null) continue;
    const index = command.exclusiveGroups.findIndex((g) => g.members.includes(param.name));
    param.exclusiveGroup = index === -1 ? null : index;
  }
}

/** A REMAINDER positional swallows everything after it, so it must come last. */
function checkPositionalOrder(command: CatalogCommand): void {
  const positionals = command.params.filter((p) => p.option === null);
  const rest = positionals.findIndex((p) => p.shape.kind === "passthrough");
  if (rest !== -1 && rest !== positionals.length - 1) {
    markRawOnly(command, "a REMAINDER positional is followed by other positionals");
  }
}

/** Property name: first long option without dashes (`--dry-run` → `dry_run`), else the dest. */
function propertyNameOf(action: RawAction): string {
  const long = action.option_strings.find((o) => o.startsWith("--"));
  const source = long ?? action.option_strings[0] ?? action.dest;
  const name = source.replace(/^-+/, "").replace(/[^A-Za-z0-9_]/g, "_");
  return name.length > 0 ? name : "arg";
}

/** A shape whose choices would show a credential keeps its value type without the choices. */
function withoutSecretChoices(shape: ParamShape, redact: Redact): ParamShape {
  if (!("value" in shape) || shape.value.choices === null) return shape;
  const leaks = shape.value.choices.some((c) => typeof c === "string" && redact(c) !== c);
  return leaks ? { ...shape, value: { ...shape.value, choices: null } } : shape;
}

/** An action's facts, read on the first sight of it. */
function factsOf(action: RawAction, context: Context): ActionFacts {
  let facts = context.facts.get(action);
  if (facts === undefined) {
    const { redact } = context;
    const classified = classifyAction(action);
    const verdict: ActionVerdict =
      classified.kind === "param"
        ? { kind: "param", shape: withoutSecretChoices(classified.shape, redact) }
        : classified;
    facts = {
      verdict,
      baseName: propertyNameOf(action),
      description: redact(describeHelp(action)),
      deprecated: action.deprecated ? redact(action.deprecated.message) : null,
      defaultValue: verdict.kind === "param" ? shownDefault(action, verdict.shape) : undefined,
    };
    context.facts.set(action, facts);
  }
  return facts;
}

function toParam(
  action: RawAction,
  facts: ActionFacts,
  shape: ParamShape,
  taken: Set<string>,
): Param {
  let name = facts.baseName;
  for (let n = 2; taken.has(name); n++) name = `${facts.baseName}_${n}`;
  taken.add(name);
  const option =
    action.option_strings.find((o) => o.startsWith("--")) ?? action.option_strings[0] ?? null;
  const param: Param = {
    name,
    dest: action.dest,
    option,
    optionStrings: action.option_strings,
    shape,
    required: isRequired(action, shape),
    description: facts.description,
    deprecated: facts.deprecated,
    exclusiveGroup: null,
  };
  if (facts.defaultValue !== undefined) param.defaultValue = facts.defaultValue;
  return param;
}

// argparse marks '*' and REMAINDER positionals required although they accept zero values.
function isRequired(action: RawAction, shape: ParamShape): boolean {
  if (shape.kind === "passthrough") return false;
  if (shape.kind === "positional")
    return shape.arity.kind !== "any" && shape.arity.kind !== "optional";
  return action.required;
}

function describeHelp(action: RawAction): string {
  const help = (action.help ?? "").replace(/\s+/g, " ").trim();
  return help.replaceAll("%(default)s", "").replaceAll("%%", "%");
}

/**
 * A default is shown only when it is a plain value a client can act on: booleans, numbers, or
 * strings among the choices. conda's NULL means "use the configuration" and is never shown;
 * free-form strings are left out because conda computes some from this machine (paths).
 */
function shownDefault(action: RawAction, shape: ParamShape): unknown {
  if (action.default_is_conda_NULL || action.default_is_suppress) return undefined;
  const value = action.default;
  if (value === null || value === undefined) return undefined;
  if (shape.kind === "flag" || shape.kind === "toggle" || shape.kind === "count") return undefined;
  const choices = "value" in shape ? shape.value.choices : null;
  const isShown = (v: unknown) =>
    typeof v === "number" ||
    typeof v === "boolean" ||
    (typeof v === "string" && (choices?.includes(v) ?? false));
  if (Array.isArray(value)) return value.length > 0 && value.every(isShown) ? value : undefined;
  return isShown(value) ? value : undefined;
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0]?.trim() ?? "";
}

/**
 * The catalog of a fresh introspection, built a command at a time as its lines are read (the
 * reader's onCommand), with the pre-parser its facts name; finish() gives null when no command
 * came, and the caller builds from the whole tree.
 */
export function createStreamedCatalog(secretValues: readonly string[]) {
  let builder: CatalogBuilder | null = null;
  return {
    onCommand(command: RawParser, facts: IntrospectionFacts): void {
      builder ??= createCatalogBuilder({ secretValues, preParser: facts.pre_parser });
      builder.add(command);
    },
    finish: (): Catalog | null => builder?.finish() ?? null,
  };
}
