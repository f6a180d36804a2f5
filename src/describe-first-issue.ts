import type * as v from "valibot";

/**
 * The first way a document failed its schema, as where and what was expected (`tree.actions[2].dest`:
 * expected string), never quoting the value found there.
 */
export function describeFirstIssue(issues: readonly v.BaseIssue<unknown>[]): string {
  const issue = issues[0];
  if (!issue) return "it does not match its schema";
  let where = "";
  for (const item of issue.path ?? []) {
    const key = item.key;
    where += typeof key === "number" ? `[${key}]` : `${where ? "." : ""}${String(key)}`;
  }
  const expected = `expected ${issue.expected ?? "a valid value"}`;
  return where ? `\`${where}\`: ${expected}` : expected;
}
