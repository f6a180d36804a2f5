import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { findJsoncSyntax } from "../../src/setup/find-jsonc-syntax.ts";
import type { ClientFile } from "../../src/setup/locate-client-file.ts";
import { mergeServerEntry } from "../../src/setup/merge-server-entry.ts";

const FILE: ClientFile = {
  path: "/x/mcp.json",
  serversKey: "mcpServers",
  stdioType: false,
  jsonc: false,
};
const VSCODE: ClientFile = { ...FILE, serversKey: "servers", jsonc: true };
const ENTRY = { command: "/bin/conda-mcp", args: ["--conda", "/opt/conda/bin/conda"] };

function merged(current: string | null, file: ClientFile = FILE): string {
  const result = mergeServerEntry(current, file, "conda", ENTRY);
  if (!result.ok) throw new Error(`refused: ${result.problem}`);
  return result.text;
}

describe("mergeServerEntry", () => {
  test("a missing, empty or blank file becomes a new file holding only the entry", () => {
    const fresh = `${JSON.stringify({ mcpServers: { conda: ENTRY } }, null, 2)}\n`;
    expect(merged(null)).toBe(fresh);
    expect(merged("")).toBe(fresh);
    expect(merged(" \n")).toBe(fresh);
  });

  test.each([
    [
      "beside another server, in the file's own indentation",
      '{\n    "a": 1,\n    "mcpServers": {\n        "x": {}\n    }\n}\n',
      `{\n    "a": 1,\n    "mcpServers": {\n        "x": {},\n        "conda": ${JSON.stringify(ENTRY, null, 4).replaceAll("\n", "\n        ")}\n    }\n}\n`,
    ],
    [
      "as a new servers object after the last key",
      '{\n\t"theme": "dark"\n}',
      `{\n\t"theme": "dark",\n\t"mcpServers": ${JSON.stringify({ conda: ENTRY }, null, "\t").replaceAll("\n", "\n\t")}\n}`,
    ],
    [
      "into an empty servers object",
      '{\n  "mcpServers": {}\n}\n',
      `{\n  "mcpServers": {\n    "conda": ${JSON.stringify(ENTRY, null, 2).replaceAll("\n", "\n    ")}\n  }\n}\n`,
    ],
    [
      "on the same line, in a file on one line",
      '{ "mcpServers": { "x": 1 } }',
      `{ "mcpServers": { "x": 1, "conda": ${JSON.stringify(ENTRY)} } }`,
    ],
    [
      "with the file's CRLF line endings",
      '{\r\n  "mcpServers": {\r\n    "x": 1\r\n  }\r\n}\r\n',
      `{\r\n  "mcpServers": {\r\n    "x": 1,\r\n    "conda": ${JSON.stringify(ENTRY, null, 2).replaceAll("\n", "\r\n    ")}\r\n  }\r\n}\r\n`,
    ],
    [
      "after a byte-order mark, which stays",
      '\uFEFF{"mcpServers":{}}',
      `\uFEFF{"mcpServers":{\n  "conda": ${JSON.stringify(ENTRY, null, 2).replaceAll("\n", "\n  ")}\n}}`,
    ],
  ])("the entry is added %s", (_, current, expected) => {
    expect(merged(current)).toBe(expected);
  });

  test("an existing entry is replaced in place; numbers, escapes and order elsewhere stay as written", () => {
    const current =
      '{"n": 1.50, "big": 12345678901234567890, "s": "\\u00e9",\n "mcpServers": {"conda": {"command": "old"}, "z": 2}}';
    const result = mergeServerEntry(current, FILE, "conda", ENTRY);
    expect(result).toEqual({
      ok: true,
      replaced: true,
      text: `{"n": 1.50, "big": 12345678901234567890, "s": "\\u00e9",\n "mcpServers": {"conda": ${JSON.stringify(ENTRY)}, "z": 2}}`,
    });
  });

  test("a repeated key is edited where JSON.parse reads it: the last one", () => {
    const current = '{"mcpServers": {"conda": 1}, "mcpServers": {"conda": 2}}';
    expect(merged(current)).toBe(
      `{"mcpServers": {"conda": 1}, "mcpServers": {"conda": ${JSON.stringify(ENTRY)}}}`,
    );
  });

  test("VS Code's servers key is the one written for it", () => {
    expect(JSON.parse(merged('{"mcpServers": {"x": 1}}', VSCODE))).toEqual({
      mcpServers: { x: 1 },
      servers: { conda: ENTRY },
    });
  });

  test.each([
    ['{"mcpServers": {', "is not valid JSON", FILE],
    ["[1, 2]", "does not hold a JSON object", FILE],
    ['"text"', "does not hold a JSON object", FILE],
    ['{"mcpServers": []}', 'has a "mcpServers" that is not an object', FILE],
    ['{"mcpServers": null}', 'has a "mcpServers" that is not an object', FILE],
    ['{\n  // mine\n  "mcpServers": {}\n}', "has comments; rewriting it would lose them", FILE],
    ['{"servers": {"x": 1,},}', "has trailing commas, which the client accepts", VSCODE],
  ])("%j is refused: it %s", (current, problem, file) => {
    const result = mergeServerEntry(current, file, "conda", ENTRY);
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.problem).toContain(problem);
  });

  test("merging into any JSON object keeps every other member and sets only the entry", () => {
    const objects = fc.dictionary(fc.string(), fc.jsonValue());
    const roots = objects.filter((o) => !Object.hasOwn(o, "mcpServers"));
    const layouts = fc.constantFrom<[string | number, boolean]>(
      [0, false],
      [2, false],
      [4, true],
      ["\t", false],
    );
    fc.assert(
      fc.property(roots, fc.option(objects), layouts, (root, servers, [indent, crlf]) => {
        const document = servers === null ? root : { ...root, mcpServers: servers };
        let text = JSON.stringify(document, null, indent);
        if (crlf) text = text.replaceAll("\n", "\r\n");
        // What the text says (JSON has no -0), with only the entry set.
        const before = JSON.parse(text);
        const expected = { ...before, mcpServers: { ...(before.mcpServers ?? {}), conda: ENTRY } };
        expect(JSON.parse(merged(text))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe("findJsoncSyntax", () => {
  test.each([
    ['{"a": "//not a comment", "b": "/*"}', null],
    ['{"a": 1} // note', "comments"],
    ['{/* a */"a": 1}', "comments"],
    ['{"a": [1, 2, ], "b": "\\",}"}', "trailing commas"],
    ['{"a": 1, // last\n}', "comments"],
    ['{"a": "\\"}", }', "trailing commas"],
    ['{"a" 1}', null],
  ])("%j: %p", (text, expected) => {
    expect(findJsoncSyntax(text)).toBe(expected as ReturnType<typeof findJsoncSyntax>);
  });
});
