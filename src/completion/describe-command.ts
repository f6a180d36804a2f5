import * as v from "valibot";
import {
  type CompletionManifest,
  type ManifestCommand,
  type ManifestDict,
  type ManifestOption,
  ManifestOptionSchema,
  type ManifestPositional,
  ManifestPositionalSchema,
  type ManifestRuntimeSource,
  ManifestRuntimeSourceSchema,
  manifestDict,
} from "./completion-manifest.ts";

const text = v.string();
const textList = v.array(text);

/** Present when the requested path started with an executable alias instead of a command. */
const AliasResolutionSchema = v.object({
  alias: text,
  /** The alias's target path; the described command is this plus the rest of the request. */
  target: textList,
  description: v.optional(text),
});

/** One command as the manifest describes it, plus the manifest's own metadata. */
export const CommandDescriptionSchema = v.object({
  /** The resolved command path (`[]` is conda itself). */
  command_path: textList,
  summary: v.optional(text),
  /** Options keyed by first long flag, fields exactly as in the manifest. */
  options: manifestDict(ManifestOptionSchema),
  positionals: v.array(ManifestPositionalSchema),
  /** Direct subcommands: their names and summaries only, never their subtrees. */
  subcommands: v.array(v.object({ name: text, summary: v.optional(text) })),
  exclusive_groups: v.array(textList),
  /** Only the runtime sources this command's options and positionals refer to. */
  runtime_sources: manifestDict(ManifestRuntimeSourceSchema),
  /** The executable aliases (`cx`) whose target is the described command. */
  aliases: v.array(v.object({ name: text, description: v.optional(text) })),
  alias_resolution: v.optional(AliasResolutionSchema),
  manifest: v.object({
    version: v.pipe(v.number(), v.integer()),
    generated_at: v.nullable(text),
    plugin_hash: v.nullable(text),
  }),
  /** The plugin set changed since generation; null when the current hash is unknown. */
  stale: v.nullable(v.boolean()),
});

/** One command as the manifest describes it, plus the manifest's own metadata. */
export type CommandDescription = v.InferOutput<typeof CommandDescriptionSchema>;

type AliasResolution = v.InferOutput<typeof AliasResolutionSchema>;
type CommandAlias = CommandDescription["aliases"][number];

/** The path names no command in the manifest; deliberately carries no part of the path. */
export interface UnknownCommand {
  error: "unknown_command";
}

/**
 * Describes the command at `commandPath` (the root when empty): its options, positionals, direct
 * subcommands, exclusive groups, the runtime sources it uses, and its executable aliases. A path
 * whose first word is an executable alias (not a command) is resolved through the alias.
 * Lookups use own properties only, so names like `__proto__` or `constructor` are just names.
 */
export function describeCommand(
  manifest: CompletionManifest,
  commandPath: readonly string[],
  { currentPluginHash }: { currentPluginHash: string | null },
): CommandDescription | UnknownCommand {
  let path = [...commandPath];
  let aliasResolution: AliasResolution | undefined;
  const first = path[0];
  if (
    first !== undefined &&
    !Object.hasOwn(manifest.commands, first) &&
    Object.hasOwn(manifest.aliases, first)
  ) {
    const alias = manifest.aliases[first];
    if (alias !== undefined) {
      aliasResolution = { alias: first, target: [...alias.target] };
      if (alias.description !== undefined) aliasResolution.description = alias.description;
      path = [...alias.target, ...path.slice(1)];
    }
  }

  let options: ManifestDict<ManifestOption> = manifest.root_options;
  let positionals: ManifestPositional[] = [];
  let children: ManifestDict<ManifestCommand> = manifest.commands;
  let exclusiveGroups: string[][] = [];
  let summary: string | undefined;
  for (const name of path) {
    if (!Object.hasOwn(children, name)) return { error: "unknown_command" };
    const node = children[name];
    if (node === undefined) return { error: "unknown_command" };
    options = node.options;
    positionals = node.positionals;
    children = node.subcommands;
    exclusiveGroups = node.exclusive_groups;
    summary = node.summary;
  }

  const description: CommandDescription = {
    command_path: path,
    options: ownCopy(options),
    positionals,
    subcommands: Object.entries(children).map(([name, child]) =>
      child.summary === undefined ? { name } : { name, summary: child.summary },
    ),
    exclusive_groups: exclusiveGroups,
    runtime_sources: referencedSources(manifest, options, positionals),
    aliases: aliasesOf(manifest, path),
    manifest: {
      version: manifest.version,
      generated_at: manifest.generated_at,
      plugin_hash: manifest.plugin_hash,
    },
    stale: currentPluginHash === null ? null : manifest.plugin_hash !== currentPluginHash,
  };
  if (summary !== undefined) description.summary = summary;
  if (aliasResolution !== undefined) description.alias_resolution = aliasResolution;
  return description;
}

/** An ordinary object with the same own keys (fromEntries defines `__proto__` as a plain key). */
function ownCopy<T>(dict: ManifestDict<T>): Record<string, T> {
  return Object.fromEntries(Object.entries(dict));
}

function referencedSources(
  manifest: CompletionManifest,
  options: ManifestDict<ManifestOption>,
  positionals: readonly ManifestPositional[],
): Record<string, ManifestRuntimeSource> {
  const names = new Set<string>();
  for (const option of Object.values(options)) {
    if (option.completion_type !== undefined) names.add(option.completion_type);
  }
  for (const positional of positionals) {
    if (positional.completion_type !== undefined) names.add(positional.completion_type);
    for (const source of positional.completion?.sources ?? []) names.add(source);
    for (const rule of positional.completion?.rules ?? []) {
      for (const source of rule.sources ?? []) names.add(source);
    }
  }
  const entries: [string, ManifestRuntimeSource][] = [];
  for (const name of names) {
    const source = Object.hasOwn(manifest.runtime_sources, name)
      ? manifest.runtime_sources[name]
      : undefined;
    if (source !== undefined) entries.push([name, source]);
  }
  return Object.fromEntries(entries);
}

function aliasesOf(manifest: CompletionManifest, path: readonly string[]): CommandAlias[] {
  const out: CommandAlias[] = [];
  for (const [name, alias] of Object.entries(manifest.aliases)) {
    const same =
      alias.target.length === path.length && alias.target.every((part, i) => part === path[i]);
    if (!same) continue;
    out.push(alias.description === undefined ? { name } : { name, description: alias.description });
  }
  return out;
}
