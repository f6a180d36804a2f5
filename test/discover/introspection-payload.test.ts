import { afterAll, beforeAll, expect, test } from "bun:test";
import * as v from "valibot";
import { describeFirstIssue } from "../../src/describe-first-issue.ts";
import { introspect } from "../../src/discover/introspect.ts";
import {
  type IntrospectionResult,
  introspectionResultSchema,
} from "../../src/introspection-payload.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";

let fixture: FixtureConda;
let document: IntrospectionResult;

beforeAll(async () => {
  fixture = await makeFixtureConda();
  document = await introspect(fixture.python, {
    env: fixture.env,
    timeoutMs: 60_000,
    platform: process.platform,
  });
}, 60_000);
afterAll(() => fixture?.cleanup());

/** The fixture's document with one change made to its first command's first action. */
function withFirstAction(change: (action: Record<string, unknown>) => void) {
  const payload = structuredClone(document);
  change(payload.tree.subcommands[0]?.actions[0] as unknown as Record<string, unknown>);
  return payload;
}

test("introspect.py's document is valid, and keeps the keys the schema does not name", () => {
  const parsed = v.safeParse(introspectionResultSchema, document);
  if (!parsed.success) throw new Error(describeFirstIssue(parsed.issues));
  // introspect() returned the schema's output: keys it does not name (nargs_kind, argument
  // groups) passed through, as the capabilities document shows them.
  const action = parsed.output.tree.subcommands[0]?.actions[0] as unknown as Record<
    string,
    unknown
  >;
  expect(action.nargs_kind).toBeString();
  expect(parsed.output.tree.subcommands[0]).toHaveProperty("argument_groups");
});

test("a deprecated action without conda's DeprecationMixin (wrapped_action null) is valid", () => {
  const payload = withFirstAction((action) => {
    action.deprecated = { message: "gone soon", category: "FutureWarning", wrapped_action: null };
  });
  expect(v.safeParse(introspectionResultSchema, payload).success).toBe(true);
});

test("a malformed action is refused naming where, never quoting the value found", () => {
  const payload = withFirstAction((action) => {
    action.dest = ["secret-value"];
  });
  const parsed = v.safeParse(introspectionResultSchema, payload, { abortEarly: true });
  expect(parsed.success).toBe(false);
  const problem = describeFirstIssue(parsed.issues ?? []);
  expect(problem).toBe("`tree.subcommands[0].actions[0].dest`: expected string");
  expect(problem).not.toContain("secret-value");
});
