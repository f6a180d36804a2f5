import { afterAll, beforeAll, expect, test } from "bun:test";
import * as v from "valibot";
import {
  describeFirstIssue,
  type IndexedParser,
  type IntrospectionDocument,
  introspectionDocumentSchema,
  type RawParser,
} from "../../src/introspection-payload.ts";
import { expandDocument } from "../support/expand-document.ts";
import { introspectPython } from "../support/introspect-python.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";

let fixture: FixtureConda;
let document: IntrospectionDocument;

beforeAll(async () => {
  fixture = await makeFixtureConda();
  document = await introspectPython(fixture.python, {
    env: fixture.env,
    timeoutMs: 60_000,
    platform: process.platform,
  });
}, 60_000);
afterAll(() => fixture?.cleanup());

/** The fixture's document with one change made to the first action of its table. */
function withFirstAction(change: (action: Record<string, unknown>) => void) {
  const payload = structuredClone(document);
  change(payload.actions[0] as unknown as Record<string, unknown>);
  return payload;
}

function firstProblem(payload: unknown): string | null {
  const parsed = v.safeParse(introspectionDocumentSchema, payload, { abortEarly: true });
  return parsed.success ? null : describeFirstIssue(parsed.issues);
}

function everyParser<P extends { subcommands: P[] }>(root: P): P[] {
  return [root, ...root.subcommands.flatMap((sub) => everyParser(sub))];
}

test("introspect.py's document is valid, and keeps the keys the schema does not name", () => {
  const parsed = v.safeParse(introspectionDocumentSchema, document);
  if (!parsed.success) throw new Error(describeFirstIssue(parsed.issues));
  // Keys the schema does not name (nargs_kind, argument groups) pass through, as the
  // capabilities document shows them.
  const action = parsed.output.actions[0] as unknown as Record<string, unknown>;
  expect(action.nargs_kind).toBeString();
  expect(parsed.output.tree.subcommands[0]).toHaveProperty("argument_groups");
});

test("each distinct action is printed once, and every parser's indexes name its own actions", () => {
  const texts = document.actions.map((action) => JSON.stringify(action));
  expect(new Set(texts).size).toBe(texts.length);
  const parsers = everyParser<IndexedParser>(document.tree);
  const references = parsers.reduce((n, parser) => n + parser.actions.length, 0);
  // conda repeats its shared options in every parser: far fewer descriptions than references.
  expect(document.actions.length).toBeLessThan(references);
  const expanded = everyParser<RawParser>(expandDocument(document).tree);
  expect(expanded.map((p) => p.path)).toEqual(parsers.map((p) => p.path));
  for (const [i, parser] of expanded.entries()) {
    const indexes = (parsers[i] as IndexedParser).actions;
    expect(parser.actions as unknown[]).toEqual(indexes.map((index) => document.actions[index]));
  }
});

test("expanding keeps every fact of the document beside the tree", () => {
  const { actions: _actions, tree: _tree, ...facts } = document;
  const { tree: _expandedTree, ...expandedFacts } = expandDocument(document);
  expect(expandedFacts).toEqual(facts);
});

test("a deprecated action without conda's DeprecationMixin (wrapped_action null) is valid", () => {
  const payload = withFirstAction((action) => {
    action.deprecated = { message: "gone soon", category: "FutureWarning", wrapped_action: null };
  });
  expect(firstProblem(payload)).toBeNull();
});

test("a malformed action is refused naming where, never quoting the value found", () => {
  const payload = withFirstAction((action) => {
    action.dest = ["secret-value"];
  });
  const problem = firstProblem(payload);
  expect(problem).toBe("`actions[0].dest`: expected string");
  expect(problem).not.toContain("secret-value");
});

test.each([
  ["past the table's end", (length: number) => length],
  ["negative", () => -1],
  ["not a whole number", () => 0.5],
])("an action index %s is refused", (_name, index) => {
  const payload = structuredClone(document);
  const parser = payload.tree.subcommands[0] as IndexedParser;
  parser.actions[0] = index(payload.actions.length);
  expect(firstProblem(payload)).not.toBeNull();
});
