import * as v from "valibot";
import type { CatalogCommand } from "../catalog/catalog-types.ts";
import { isJsonObject } from "../is-json-object.ts";
import { paramTokens } from "./build-argv.ts";
import type { ToolSchema } from "./build-input-schema.ts";

/** One reason the arguments were refused: where, and what was expected there. */
export interface ArgumentIssue {
  /** JSON Pointer into the arguments object, e.g. `/channel/0`. */
  path: string;
  message: string;
}

/** Validation outcome, valibot-style: a value, never an exception. */
export type ValidationResult =
  | { success: true; output: Record<string, unknown> }
  | { success: false; issues: ArgumentIssue[] };

/** The most bytes of argv one call may produce (Linux allows about 2 MiB with the environment). */
export const MAX_ARGV_BYTES = 1024 * 1024;

const MAX_KEY_SHOWN = 64;

/** A path segment as a JSON Pointer token, shortened and stripped of control characters. */
function pointerToken(key: unknown): string {
  const raw = String(key).replace(/\p{Cc}/gu, "?");
  const shortened = raw.length > MAX_KEY_SHOWN ? `${raw.slice(0, MAX_KEY_SHOWN)}…` : raw;
  return shortened.replaceAll("~", "~0").replaceAll("/", "~1");
}

function pointerOf(issue: v.BaseIssue<unknown>): string {
  const keys = issue.path?.map((item) => pointerToken(item.key)) ?? [];
  return keys.length === 0 ? "/" : `/${keys.join("/")}`;
}

/** Words for a valibot issue, built from the expectation only, never from the received value. */
function describeIssue(issue: v.BaseIssue<unknown>): string {
  const depth = issue.path?.length ?? 0;
  if (issue.type === "strict_object" && issue.expected === "never") return "unknown property";
  if (depth === 1 && issue.input === undefined) return "required";
  return `expected ${issue.message}`;
}

/** valibot's message for schemas without our own: the expectation, never the input. */
export function fallbackMessage(issue: v.BaseIssue<unknown>): string {
  return issue.expected ?? "a valid value";
}

/** valibot issues as path + expectation pairs, without duplicates. */
export function toArgumentIssues(issues: readonly v.BaseIssue<unknown>[]): ArgumentIssue[] {
  return dedupe(issues.map((issue) => ({ path: pointerOf(issue), message: describeIssue(issue) })));
}

/**
 * Validates tool arguments against the schema, then the rules JSON Schema cannot state at the
 * root: mutually exclusive groups, positional order and the REMAINDER list's first item.
 */
export function validateArgs(
  command: CatalogCommand,
  schema: ToolSchema,
  input: unknown,
): ValidationResult {
  // valibot takes an array for an object; tool arguments are always a JSON object.
  if (input !== undefined && !isJsonObject(input)) {
    return { success: false, issues: [{ path: "/", message: "expected an object" }] };
  }
  const parsed = v.safeParse(schema.validator, input ?? {}, { message: fallbackMessage });
  if (!parsed.success) {
    const issues = parsed.issues.map((issue) => ({
      path: pointerOf(issue),
      message: describeIssue(issue),
    }));
    return { success: false, issues: dedupe(issues) };
  }
  const args = parsed.output;
  const issues = [
    ...groupIssues(command, args),
    ...sharedDestIssues(command, args),
    ...positionalIssues(command, args),
  ];
  if (issues.length === 0) {
    const bytes = command.params.reduce(
      (sum, p) =>
        sum + paramTokens(p, args[p.name]).reduce((n, t) => n + Buffer.byteLength(t) + 1, 0),
      0,
    );
    if (bytes > MAX_ARGV_BYTES)
      issues.push({
        path: "/",
        message: `expected arguments of at most ${MAX_ARGV_BYTES} bytes in all`,
      });
  }
  return issues.length === 0 ? { success: true, output: args } : { success: false, issues };
}

function dedupe(issues: ArgumentIssue[]): ArgumentIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${i.path}\0${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function isGiven(command: CatalogCommand, name: string, args: Record<string, unknown>): boolean {
  const param = command.params.find((p) => p.name === name);
  return param !== undefined && paramTokens(param, args[name]).length > 0;
}

function groupIssues(command: CatalogCommand, args: Record<string, unknown>): ArgumentIssue[] {
  const issues: ArgumentIssue[] = [];
  for (const group of command.exclusiveGroups) {
    const given = group.members.filter((m) => isGiven(command, m, args));
    if (given.length > 1) {
      issues.push({
        path: `/${given[1]}`,
        message: `expected at most one of ${group.members.join(", ")}`,
      });
    } else if (group.required && given.length === 0) {
      issues.push({ path: "/", message: `expected exactly one of ${group.members.join(", ")}` });
    }
  }
  return issues;
}

/**
 * Options that set the same conda setting (`--strict-channel-priority`, `--no-channel-priority`)
 * would leave it to argv order which one wins; JSON objects carry no order a client can rely on.
 * Options that add to one shared list combine and stay allowed.
 */
function sharedDestIssues(command: CatalogCommand, args: Record<string, unknown>): ArgumentIssue[] {
  const setters = command.params.filter(
    (p) => !((p.shape.kind === "option" && p.shape.repeat) || p.shape.kind === "extend_const"),
  );
  const issues: ArgumentIssue[] = [];
  for (const dest of new Set(setters.map((p) => p.dest))) {
    const sharing = setters.filter((p) => p.dest === dest);
    const given = sharing.filter((p) => isGiven(command, p.name, args));
    if (given.length < 2) continue;
    // An exclusive group over the same options already says so.
    const group = given[0]?.exclusiveGroup ?? null;
    if (group !== null && given.every((p) => p.exclusiveGroup === group)) continue;
    issues.push({
      path: `/${given[1]?.name}`,
      message: `expected at most one of ${sharing.map((p) => p.name).join(", ")} (they set the same conda setting)`,
    });
  }
  return issues;
}

function positionalIssues(command: CatalogCommand, args: Record<string, unknown>): ArgumentIssue[] {
  const issues: ArgumentIssue[] = [];
  let skipped: string | null = null;
  for (const param of command.params) {
    if (param.option !== null) continue;
    const given = isGiven(command, param.name, args);
    // argparse fills positionals left to right: a later one cannot be given without an earlier one.
    if (given && skipped !== null && param.shape.kind !== "passthrough") {
      issues.push({ path: `/${param.name}`, message: `expected ${skipped} to be given first` });
    }
    if (!given && skipped === null) skipped = param.name;
    const value = args[param.name];
    if (param.shape.kind === "passthrough" && !param.shape.greedy && Array.isArray(value)) {
      const first = value[0];
      if (typeof first === "string" && first.startsWith("-")) {
        issues.push({
          path: `/${param.name}/0`,
          message: "expected a value that does not start with '-'",
        });
      }
    }
  }
  return issues;
}
