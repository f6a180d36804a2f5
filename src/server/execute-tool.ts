import * as v from "valibot";
import { isJsonObject } from "../is-json-object.ts";
import { MAX_ARRAY_ITEMS, MAX_STRING_LENGTH } from "../schema/build-input-schema.ts";
import { type ArgumentIssue, fallbackMessage, toArgumentIssues } from "../schema/validate-args.ts";

/** Name of the raw command-line tool. */
export const EXECUTE_TOOL_NAME = "conda_execute";

/** Validated input of a conda_execute call. */
export interface ExecuteInput {
  argv: string[];
  cwd?: string;
  stdin?: string;
  timeout_seconds?: number;
}

// argv carries UTF-8 without NUL: an unpaired surrogate would reach conda as U+FFFD.
const WELL_FORMED = /^(?:[^\0\uD800-\uDFFF]|[\uD800-\uDBFF][\uDC00-\uDFFF])*$/;

function boundedString(max: number, what: string) {
  return v.pipe(
    v.string("a string"),
    v.regex(WELL_FORMED, "a string without NUL or unpaired surrogates"),
    v.maxCodePoints(max, `${what} of at most ${max} characters`),
  );
}

/** The valibot schema of conda_execute's input, bounded by the server's limits. */
export function executeInputSchema(limits: { maxStdinBytes: number; timeoutSeconds: number }) {
  return v.strictObject(
    {
      // Stops at the first wrong item, so the refusal does not grow with the input.
      argv: v.config(
        v.pipe(
          v.array(boundedString(MAX_STRING_LENGTH, "a string"), "an array of strings"),
          v.maxLength(MAX_ARRAY_ITEMS, `an array of at most ${MAX_ARRAY_ITEMS} strings`),
          v.description('Arguments after the conda executable, e.g. ["list", "--json"].'),
        ),
        { abortEarly: true },
      ),
      cwd: v.optional(
        v.pipe(boundedString(4096, "a path"), v.description("Working directory of the call.")),
      ),
      stdin: v.optional(
        v.pipe(
          v.string("a string"),
          v.maxLength(
            limits.maxStdinBytes,
            `a string of at most ${limits.maxStdinBytes} characters`,
          ),
          v.description("Text given to conda on standard input (for prompts or --stdin)."),
        ),
      ),
      timeout_seconds: v.optional(
        v.pipe(
          v.number("a number"),
          v.gtValue(0, "a positive number"),
          v.maxValue(
            limits.timeoutSeconds,
            `a number of at most ${limits.timeoutSeconds} (the server's limit)`,
          ),
          v.description("Shorter limit for this call; the server's --timeout is the most."),
        ),
      ),
    },
    "an object",
  );
}

/** JSON Schema of conda_execute's input, as tools/list shows it. */
export const EXECUTE_INPUT_JSON_SCHEMA = {
  type: "object" as const,
  properties: {
    argv: {
      type: "array",
      items: { type: "string" },
      maxItems: MAX_ARRAY_ITEMS,
      description: 'Arguments after the conda executable, e.g. ["list", "--json"].',
    },
    cwd: { type: "string", description: "Working directory of the call." },
    stdin: {
      type: "string",
      description: "Text given to conda on standard input (for prompts or --stdin).",
    },
    timeout_seconds: {
      type: "number",
      exclusiveMinimum: 0,
      description: "Shorter limit for this call; the server's --timeout is the most.",
    },
  },
  required: ["argv"],
  additionalProperties: false,
};

/** Validates a conda_execute input, with issues that name paths and never values. */
export function validateExecuteInput(
  input: unknown,
  limits: { maxStdinBytes: number; timeoutSeconds: number },
): { success: true; output: ExecuteInput } | { success: false; issues: ArgumentIssue[] } {
  if (!isJsonObject(input)) {
    return { success: false, issues: [{ path: "/", message: "expected an object" }] };
  }
  const parsed = v.safeParse(executeInputSchema(limits), input, { message: fallbackMessage });
  return parsed.success
    ? { success: true, output: parsed.output }
    : { success: false, issues: toArgumentIssues(parsed.issues) };
}
