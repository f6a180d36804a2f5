import * as v from "valibot";
import {
  advertisedJsonSchema,
  MAX_ARRAY_ITEMS,
  MAX_STRING_LENGTH,
  type ToolInputJsonSchema,
  toolJsonSchema,
  wellFormedString,
} from "../schema/build-input-schema.ts";
import { type ArgumentIssue, fallbackMessage, toArgumentIssues } from "../schema/validate-args.ts";
import { isJsonObject } from "../values.ts";

/** Name of the raw command-line tool. */
export const EXECUTE_TOOL_NAME = "conda_execute";

/** The server's limits that bound a conda_execute call. */
export interface ExecuteLimits {
  maxStdinBytes: number;
  timeoutSeconds: number;
}

/** The valibot schema of conda_execute's input: its type, its validator and its JSON Schema. */
function executeInputSchema(limits: ExecuteLimits) {
  return v.strictObject(
    {
      // Stops at the first wrong item, so the refusal does not grow with the input.
      argv: v.config(
        v.pipe(
          v.array(wellFormedString(MAX_STRING_LENGTH, "a string"), "an array of strings"),
          v.maxLength(MAX_ARRAY_ITEMS, `an array of at most ${MAX_ARRAY_ITEMS} strings`),
          v.description('Arguments after the conda executable, e.g. ["list", "--json"].'),
        ),
        { abortEarly: true },
      ),
      cwd: v.optional(
        v.pipe(wellFormedString(4096, "a path"), v.description("Working directory of the call.")),
      ),
      stdin: v.optional(
        v.pipe(
          v.string("a string"),
          v.maxCodePoints(
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

/** Validated input of a conda_execute call. */
export type ExecuteInput = v.InferOutput<ReturnType<typeof executeInputSchema>>;

/** conda_execute's input, built once per server from its limits. */
export interface ExecuteTool {
  /** The JSON Schema tools/list shows, converted when first read: only --allow-exec lists it. */
  readonly jsonSchema: ToolInputJsonSchema;
  /** Validates a call's input, with issues that name paths and never values. */
  validate(
    input: unknown,
  ): { success: true; output: ExecuteInput } | { success: false; issues: ArgumentIssue[] };
}

/** Builds conda_execute's schema for the server's limits: one shape for validation and clients. */
export function createExecuteTool(limits: ExecuteLimits): ExecuteTool {
  const schema = executeInputSchema(limits);
  let jsonSchema: ToolInputJsonSchema | null = null;
  return {
    get jsonSchema() {
      jsonSchema ??= toolJsonSchema(advertisedJsonSchema(schema));
      return jsonSchema;
    },
    validate(input) {
      if (!isJsonObject(input)) {
        return { success: false, issues: [{ path: "/", message: "expected an object" }] };
      }
      const parsed = v.safeParse(schema, input, { message: fallbackMessage });
      return parsed.success
        ? { success: true, output: parsed.output }
        : { success: false, issues: toArgumentIssues(parsed.issues) };
    },
  };
}
