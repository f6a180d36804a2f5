import type { Catalog } from "./catalog-types.ts";

/** The catalog for people: tools, then commands that are not tools and why, then diagnostics. */
export function formatCatalog(catalog: Catalog, header: string): string {
  const lines = [header, ""];
  const tools = catalog.commands.filter((c) => c.status === "tool");
  const width = Math.max(0, ...tools.map((c) => (c.toolName ?? "").length)) + 2;
  lines.push(`Tools (${tools.length}):`);
  for (const command of tools) {
    const aliases = command.aliases.length
      ? ` (alias: ${command.aliases.map((a) => a.join(" ")).join(", ")})`
      : "";
    lines.push(
      `  ${(command.toolName ?? "").padEnd(width)}conda ${command.path.join(" ")}${aliases}`,
    );
  }
  const others = catalog.commands.filter((c) => c.status !== "tool");
  if (others.length > 0) {
    lines.push(
      "",
      `Not served as typed tools (${others.length}; conda_execute can still run them):`,
    );
    for (const command of others) {
      lines.push(
        `  conda ${command.path.join(" ")}: ${command.status.replace("_", "-")}, ${command.reason ?? ""}`,
      );
    }
  }
  if (catalog.diagnostics.length > 0) {
    lines.push("", "Diagnostics:");
    for (const d of catalog.diagnostics)
      lines.push(`  [${d.level}] ${d.path.join(" ") || "(tree)"}: ${d.message}`);
  }
  return `${lines.join("\n")}\n`;
}
