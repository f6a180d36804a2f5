import { describe, expect, test } from "bun:test";
import { runProcess } from "../../src/execute/run-process.ts";
import type { ExecutionResult } from "../../src/result/execution-result.ts";
import {
  COMPACT_EXECUTION_RESULT_JSON_SCHEMA,
  EXECUTION_RESULT_JSON_SCHEMA,
} from "../../src/result/execution-result-json-schema.ts";
import { renderToolResult } from "../../src/result/render-tool-result.ts";
import { summarizeResult } from "../../src/result/summarize-result.ts";
import { deadline, fixture, testEnv } from "../execute/process-test-helpers.ts";
import { checkJsonSchema } from "./check-json-schema.ts";

const OK: ExecutionResult = {
  exit_code: 0,
  stdout: '{"envs": []}',
  stderr: "",
  duration_ms: 812,
  parsed_json: { envs: [] },
  timed_out: false,
  cancelled: false,
  stdout_truncated: false,
  stderr_truncated: false,
  restart_required: false,
  killed: false,
  stop_reason: "exited",
  stop_detail: null,
};
const MiB = 1024 * 1024;

describe("summarizeResult", () => {
  test.each<[Partial<ExecutionResult>, number | undefined, string]>([
    [{}, undefined, "conda env list: exit 0 in 812 ms"],
    [{ exit_code: 2, duration_ms: 3249 }, undefined, "conda env list: exit 2 in 3.2 s"],
    [
      { exit_code: null, timed_out: true, duration_ms: 600_012 },
      undefined,
      "conda env list: timed out after 600 s",
    ],
    [
      { exit_code: null, cancelled: true, duration_ms: 45 },
      undefined,
      "conda env list: cancelled after 45 ms",
    ],
    [
      { stdout_truncated: true },
      MiB,
      "conda env list: exit 0 in 812 ms; stdout truncated at 1 MiB",
    ],
    [
      { stdout_truncated: true, stderr_truncated: true },
      1536 * 1024,
      "conda env list: exit 0 in 812 ms; stdout and stderr truncated at 1.5 MiB",
    ],
    [{ stderr_truncated: true }, undefined, "conda env list: exit 0 in 812 ms; stderr truncated"],
    [
      { restart_required: true },
      undefined,
      "conda env list: exit 0 in 812 ms; conda changed: restart required",
    ],
    [
      {
        exit_code: null,
        stop_reason: "not_started",
        stop_detail: "could not start conda: the program was not found (ENOENT)",
      },
      undefined,
      "conda env list: could not start conda: the program was not found (ENOENT)",
    ],
    [
      {
        exit_code: null,
        stderr: "Segfault\n",
        stop_reason: "signal",
        stop_detail: "conda was killed by signal SIGSEGV",
      },
      undefined,
      "conda env list: conda was killed by signal SIGSEGV",
    ],
    [{ exit_code: null }, undefined, "conda env list: no exit code after 812 ms"],
  ])("%j (cap %p) reads %j", (changes, cap, expected) => {
    expect(summarizeResult({ ...OK, ...changes }, "conda env list", cap)).toBe(expected);
  });
});

describe("renderToolResult", () => {
  test("renders structured content, a summary line with the JSON but not parsed_json twice, and no error for exit 0", () => {
    const rendered = renderToolResult(OK, { summaryLabel: "conda env list" });
    const { parsed_json: _, ...withoutParsed } = OK;
    expect(rendered).toEqual({
      structuredContent: { ...OK },
      content: [
        {
          type: "text",
          text: `conda env list: exit 0 in 812 ms\n${JSON.stringify(withoutParsed)}`,
        },
      ],
      isError: false,
    });
  });

  test.each<[string, Partial<ExecutionResult>]>([
    ["a nonzero exit", { exit_code: 1 }],
    ["a timeout", { exit_code: null, timed_out: true }],
    ["a cancel", { exit_code: null, cancelled: true }],
    [
      "a spawn failure",
      { exit_code: null, stop_reason: "not_started", stop_detail: "could not start conda" },
    ],
  ])("%s is an error", (_, changes) => {
    expect(renderToolResult({ ...OK, ...changes }, { summaryLabel: "x" }).isError).toBe(true);
  });
});

describe("EXECUTION_RESULT_JSON_SCHEMA", () => {
  test("requires exactly the result's fields and allows no others", () => {
    const required: string[] = [...EXECUTION_RESULT_JSON_SCHEMA.required];
    expect(required.sort()).toEqual(Object.keys(OK).sort());
    expect(Object.keys(EXECUTION_RESULT_JSON_SCHEMA.properties).sort()).toEqual(
      Object.keys(OK).sort(),
    );
    expect(EXECUTION_RESULT_JSON_SCHEMA.additionalProperties).toBe(false);
  });

  test.each<[string, Record<string, unknown>, string]>([
    ["a fractional exit code", { ...OK, exit_code: 1.5 }, "$.exit_code: expected integer or null"],
    ["a missing field", { ...OK, cancelled: undefined }, "$.cancelled: expected boolean"],
    ["an extra field", { ...OK, extra: 1 }, "$.extra: not allowed"],
    ["a negative duration", { ...OK, duration_ms: -1 }, "$.duration_ms: below 0"],
  ])("rejects %s (the check is not vacuous)", (_, value, issue) => {
    expect(checkJsonSchema(EXECUTION_RESULT_JSON_SCHEMA, value)).toEqual([issue]);
    expect(checkJsonSchema(COMPACT_EXECUTION_RESULT_JSON_SCHEMA, value)).toEqual([issue]);
  });

  test("the compact form has the same rules without a description", () => {
    const { properties, ...rest } = COMPACT_EXECUTION_RESULT_JSON_SCHEMA;
    const { properties: described, ...same } = EXECUTION_RESULT_JSON_SCHEMA;
    expect(rest).toEqual(same);
    for (const [name, rules] of Object.entries(described)) {
      const { description, ...kept } = rules;
      expect(description.length).toBeGreaterThan(0);
      expect(properties[name]).toEqual(kept);
    }
  });

  test("real results of every kind validate as rendered structured content", async () => {
    const env = testEnv();
    const options = { platform: process.platform, timeoutMs: 60_000, maxOutputBytes: 4096 };
    const results = await deadline(
      Promise.all([
        runProcess({ command: fixture("echo-argv"), argv: ["a", "b"], env }, options),
        runProcess({ command: fixture("exit"), argv: ["3"], env }, options),
        runProcess({ command: fixture("flood"), argv: ["100000", "100000"], env }, options),
        runProcess({ command: fixture("json-records"), argv: [], env }, options),
        runProcess({ command: fixture("forever"), argv: [], env }, { ...options, timeoutMs: 50 }),
        runProcess({ command: fixture("no-such-program"), argv: [], env }, options),
        runProcess({ command: fixture("kill-self"), argv: ["TERM"], env }, options),
      ]),
      30_000,
      "real executions",
    );
    expect(results.map((result) => result.exit_code)).toEqual([0, 3, 0, 0, null, null, null]);
    for (const result of results) {
      const rendered = renderToolResult(result, { summaryLabel: "fixture" });
      expect(checkJsonSchema(EXECUTION_RESULT_JSON_SCHEMA, rendered.structuredContent)).toEqual([]);
      expect(
        checkJsonSchema(COMPACT_EXECUTION_RESULT_JSON_SCHEMA, rendered.structuredContent),
      ).toEqual([]);
      const [block] = rendered.content;
      expect(
        block?.type === "text" && JSON.parse(block.text.split("\n").slice(1).join("\n")),
      ).toEqual({ ...rendered.structuredContent, parsed_json: undefined });
    }
  });
});
