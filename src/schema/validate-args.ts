import * as v from "valibot";
import type { CatalogCommand } from "../catalog/catalog-types.ts";
import { isJsonObject } from "../values.ts";
import { buildArgv, paramTokens } from "./build-argv.ts";
import type { ToolSchema } from "./build-input-schema.ts";
import { preParsedOption } from "./pre-parsed-option.ts";
import { settingPartners } from "./setting-partners.ts";

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
  schema: Pick<ToolSchema, "validator">,
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
  if (issues.length === 0) issues.push(...preParsedIssues(command, args));
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

/** At most one of the options that set one conda setting (see settingPartners). */
function sharedDestIssues(command: CatalogCommand, args: Record<string, unknown>): ArgumentIssue[] {
  const given = command.params.filter((p) => isGiven(command, p.name, args));
  for (const [index, param] of given.entries()) {
    const partners = settingPartners(command, param);
    const clash = given.slice(index + 1).find((p) => partners.includes(p));
    if (clash) {
      const names = [param, ...partners].map((p) => p.name).join(", ");
      return [
        {
          path: `/${clash.name}`,
          message: `expected at most one of ${names} (they set the same conda setting)`,
        },
      ];
    }
  }
  return [];
}

/**
 * conda pre-parses its global options (`--json`, `-v`, `--no-plugins`, ...) from anywhere in
 * argv before the first `--`, passed-through items included: an item it would take is refused,
 * since it would change conda itself, not reach the plugin.
 */
function preParsedIssues(command: CatalogCommand, args: Record<string, unknown>): ArgumentIssue[] {
  const param = command.params.find((p) => p.shape.kind === "passthrough");
  const items = param ? args[param.name] : undefined;
  if (param?.shape.kind !== "passthrough" || !param.shape.preParser || !Array.isArray(items))
    return [];
  const argv = buildArgv(command, args);
  const start = argv.length - items.length;
  const end = argv.indexOf("--");
  for (const [index, item] of (items as string[]).entries()) {
    if (end !== -1 && end < start + index) break;
    if (preParsedOption(item, param.shape.preParser) !== null) {
      // The option is not named: it may be the very text that was sent.
      return [
        {
          path: `/${param.name}/${index}`,
          message:
            "expected an item that conda would not read as one of its own global options (it reads them anywhere before a '--' item)",
        },
      ];
    }
  }
  return [];
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
