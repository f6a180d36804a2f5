import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { createDocumentReader } from "../../src/discover/create-document-reader.ts";
import { expandDocument } from "../support/expand-document.ts";
import type { CondaMcpError } from "../../src/errors.ts";
import { introspectionDocumentSchema } from "../../src/introspection-payload.ts";
import recorded from "../../src/warm-start/rehearsal-document.jsonl" with { type: "text" };

// The recorded lines of a real conda 26.7 (three commands): the facts, a line per command, the
// plugins' facts, the root.
const LINES = recorded.trimEnd().split("\n");
const PLUGINS_AT = LINES.findIndex((line) => line.startsWith('{"external_plugins"'));
const SITE_LINE = JSON.stringify({ site_dirs: ["/opt/conda/lib/python3.11/site-packages"] });
const encode = (text: string) => new TextEncoder().encode(text);

function read(
  lines: string[],
  options: { maxBytes?: number; chunkBytes?: number; onCommand?: () => void } = {},
) {
  const siteDirs: string[][] = [];
  const reader = createDocumentReader({
    maxBytes: options.maxBytes ?? 1024 * 1024,
    onSiteDirs: (dirs) => siteDirs.push(dirs),
    onCommand: options.onCommand,
  });
  const bytes = encode(lines.map((line) => `${line}\n`).join(""));
  const step = options.chunkBytes ?? bytes.length;
  for (let at = 0; at < bytes.length; at += step) reader.push(bytes.slice(at, at + step));
  return { outcome: reader.outcome(), siteDirs, decided: reader.decided };
}

function failure(lines: string[]): { code: string; message: string } {
  const { outcome } = read(lines);
  if (outcome.kind !== "failed") throw new Error(`expected a failure, got ${outcome.kind}`);
  const error = outcome.error as CondaMcpError;
  return { code: error.code, message: error.message };
}

/** The recorded line at `index`, changed. */
function changed(index: number, change: (line: Record<string, unknown>) => void): string[] {
  const lines = [...LINES];
  const line = JSON.parse(lines[index] as string);
  change(line);
  lines[index] = JSON.stringify(line);
  return lines;
}

describe("reading introspect.py's lines", () => {
  test("puts the document together: the facts, every action in order, the commands under the root", () => {
    const { outcome, siteDirs } = read([SITE_LINE, ...LINES]);
    if (outcome.kind !== "document") throw new Error(outcome.kind);
    const { document } = outcome;
    expect(siteDirs).toEqual([["/opt/conda/lib/python3.11/site-packages"]]);
    // The whole document's own schema accepts what the lines' schemas checked piece by piece.
    expect(v.safeParse(introspectionDocumentSchema, document).success).toBe(true);
    const parts = LINES.map((line) => JSON.parse(line));
    expect(document.actions).toEqual(parts.flatMap((part) => part.actions ?? []));
    expect(document.tree.subcommands.map((command) => command.command)).toEqual([
      "config",
      "env",
      "run",
    ]);
    const { actions: _actions, ...facts } = parts[0];
    expect(document).toMatchObject(facts);
    expect(document).toMatchObject(parts[PLUGINS_AT]);
    expect(document.external_plugins.length).toBeGreaterThan(0);
    // Parsers that share an option share its one description, whichever line brought it.
    const expanded = expandDocument(document).tree;
    const help = (path: number) =>
      expanded.subcommands[path]?.actions.find((a) => a.dest === "help");
    expect(help(0)).toBe(help(2) as never);
  });

  test("chunks that split lines and characters anywhere give the same document", () => {
    // Help in other scripts than ASCII, as conda's translations or a plugin's could have.
    const lines = changed(1, (line) => {
      const [first] = line.actions as { help: string | null }[];
      if (first) first.help = "Zeigt Hilfe an: é, €, 𝄞.";
    });
    const whole = read([SITE_LINE, ...lines]).outcome;
    if (whole.kind !== "document") throw new Error(whole.kind);
    expect(whole.document.actions[0]?.help).toBe("Zeigt Hilfe an: é, €, 𝄞.");
    for (const chunkBytes of [1, 2, 3, 7, 4096]) {
      expect(read([SITE_LINE, ...lines], { chunkBytes }).outcome).toEqual(whole);
    }
  });

  test("decides at the last line, before stdout ends", async () => {
    const { decided, outcome } = read(LINES);
    await decided;
    expect(outcome.kind).toBe("document");
    // Without the root's line the document is not complete.
    expect(read(LINES.slice(0, -1)).outcome.kind).toBe("pending");
  });

  test("a failure line the script printed ends the document with its reason", () => {
    const line = (code: string) =>
      JSON.stringify({ ok: false, error: { code, message: "conda failed" } });
    expect(failure([SITE_LINE, LINES[0] as string, line("PARSER_FAILED")])).toEqual({
      code: "INTROSPECTION_FAILED",
      message: "Could not read conda's commands: conda failed",
    });
    expect(failure([SITE_LINE, line("UNSUPPORTED_CONDA")]).code).toBe("UNSUPPORTED_CONDA");
  });

  test("a line its schema refuses is named by the first field that fails, never echoed", () => {
    const secret = "s3cr3t-value";
    const refused = failure(
      changed(1, (line) => {
        (line.actions as Record<string, unknown>[])[0] = { dest: secret };
      }),
    );
    expect(refused.code).toBe("INTROSPECTION_FAILED");
    expect(refused.message).toStartWith("The introspection document is malformed: ");
    expect(refused.message).toContain("actions");
    expect(refused.message).not.toContain(secret);
  });

  test("a parser may name only the actions sent so far", () => {
    const ahead = changed(1, (line) => {
      (line.command as { actions: number[] }).actions.push(LINES.length * 1000);
    });
    expect(failure(ahead).message).toContain(
      "every action index of the tree names an entry of actions",
    );
  });

  test("what the catalog throws for a command ends the document with that error", () => {
    const broken = new Error("the catalog could not read this command");
    const { outcome } = read(LINES, {
      onCommand: () => {
        throw broken;
      },
    });
    expect(outcome).toEqual({ kind: "failed", error: broken });
  });

  test("lines out of their order, or of no kind, are malformed", () => {
    expect(failure(LINES.slice(1)).message).toContain(
      "the installation's facts did not come first",
    );
    expect(failure([LINES[0] as string, ...LINES]).message).toContain(
      "the installation's facts came twice",
    );
    expect(failure([...LINES.slice(0, 1), "not json", ...LINES.slice(1)]).message).toContain(
      "a line is not a JSON object",
    );
    expect(failure([LINES[0] as string, JSON.stringify({ other: 1 })]).message).toContain(
      "a line is none of the document's",
    );
    // The site folders' line counts only first.
    expect(failure([LINES[0] as string, SITE_LINE]).message).toContain("none of the document's");
    const plugins = LINES[PLUGINS_AT] as string;
    const withoutPlugins = LINES.filter((line) => line !== plugins);
    expect(failure(withoutPlugins).message).toContain(
      "the plugins' facts did not come before the root",
    );
    expect(failure([plugins, ...withoutPlugins]).message).toContain(
      "the installation's facts did not come first",
    );
    expect(failure([LINES[0] as string, plugins, ...LINES.slice(1)]).message).toContain(
      "the plugins' facts came twice",
    );
  });

  test("past maxBytes nothing more is read and the document stays pending", () => {
    expect(read([SITE_LINE, ...LINES], { maxBytes: 1000 }).outcome.kind).toBe("pending");
  });
});
