import type { Catalog } from "../catalog/catalog-types.ts";
import { listArguments } from "../catalog/list-arguments.ts";
import { redactSecrets } from "../catalog/redact-secrets.ts";
import type { RawParser, RawPluginDistribution } from "../introspection-payload.ts";

/** URI of the one resource this server offers. */
export const CAPABILITIES_URI = "conda://capabilities";

/** What the capabilities document is built from. */
export interface CapabilitiesInput {
  serverVersion: string;
  targetExecutable: string;
  condaVersion: string;
  fingerprint: string;
  catalogSource: "introspection" | "cache";
  /** Who answered `initialize` and `tools/list` on stdio: the startup snapshot or this server. */
  handshakeSource: "snapshot" | "server";
  catalog: Catalog;
  /** The introspected tree the catalog came from, for every command's complete arguments. */
  tree: RawParser;
  /** Values to redact from the arguments' text (see credentialValues). */
  secretValues: readonly string[];
  plugins: RawPluginDistribution[];
  /** Every tool the server lists, generated or not. */
  listedTools: string[];
  policy: { allowWrite: boolean; allowDestructive: boolean; allowExec: boolean };
}

/**
 * The immutable description of the served conda. It holds facts about the target only:
 * no environment variables, configuration values or request data, and help-derived text is
 * passed through the secret redactor.
 */
export function buildCapabilities(input: CapabilitiesInput): string {
  const redact = (text: string) => redactSecrets(text, input.secretValues);
  const document = {
    server: { name: "conda-mcp", version: input.serverVersion },
    target_executable: input.targetExecutable,
    conda_version: input.condaVersion,
    discovery_fingerprint: input.fingerprint,
    catalog_source: input.catalogSource,
    handshake_source: input.handshakeSource,
    generated_tools: input.catalog.commands.flatMap((c) =>
      c.status === "tool" && c.toolName ? [c.toolName] : [],
    ),
    listed_tools: input.listedTools,
    policy: {
      allow_write: input.policy.allowWrite,
      allow_destructive: input.policy.allowDestructive,
      allow_exec: input.policy.allowExec,
    },
    catalog: {
      commands: input.catalog.commands.map((c) => ({
        path: c.path,
        aliases: c.aliases,
        status: c.status,
        tool: c.toolName,
        reason: c.reason,
        summary: c.summary,
        plugin: c.plugin,
        hidden_options: c.hiddenOptions,
        exclusive_groups: c.exclusiveGroups,
        arguments: listArguments(input.tree, c, redact),
      })),
      diagnostics: input.catalog.diagnostics.map((d) => ({
        ...d,
        message: redactSecrets(d.message),
      })),
    },
    plugins: input.plugins.map((p) => ({
      name: p.project_name,
      version: p.version,
      entry_points: p.entry_points.map((e) => ({ name: e.name, value: e.value })),
      hooks: p.hooks,
    })),
  };
  return JSON.stringify(document, null, 2);
}
