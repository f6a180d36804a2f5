import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { buildCatalog } from "../../src/catalog/build-catalog.ts";
import type { CatalogCommand } from "../../src/catalog/catalog-types.ts";
import { validateArgs } from "../../src/schema/validate-args.ts";
import { buildInputSchema } from "../support/build-input-schema.ts";
import { expandDocument } from "../support/expand-document.ts";
import { rawParserAt } from "../support/find-parse-mismatches.ts";
import { introspectPython } from "../support/introspect-python.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import {
  describeRealConda,
  makeRealCondaSandbox,
  type RealCondaSandbox,
} from "../support/real-conda.ts";
import { type RunningServer, startServer, withDeadline } from "../support/start-server.ts";
import { hostileArgsArb, submittedStrings } from "./hostile-input-arb.ts";

const SEED = Number(process.env.CONDA_MCP_FUZZ_SEED ?? 20_260_701);
const REFUSALS_PER_TOOL = 6;

let fixture: FixtureConda;
let server: RunningServer;
let commands: CatalogCommand[];
const optionStringsOf = new Map<CatalogCommand, string[]>();

/** Starts a server on a conda and learns its tools and each command's option strings. */
async function serveConda(condaExe: string, python: string, env: Record<string, string>) {
  const tree = expandDocument(
    await introspectPython(python, { env, timeoutMs: 60_000, platform: process.platform }),
  );
  commands = buildCatalog(tree.tree, { preParser: tree.pre_parser }).commands.filter(
    (c) => c.status === "tool",
  );
  for (const command of commands) {
    const options = rawParserAt(tree.tree, command.path).actions.flatMap((a) => a.option_strings);
    optionStringsOf.set(command, options);
  }
  server = await startServer({ conda: condaExe, env });
}

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

/** The SDK's request schema rebuilds `arguments` and drops an own `__proto__` key on the way. */
function withoutProtoKey(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([key]) => key !== "__proto__"));
}

async function call(name: string, args: unknown): Promise<CallToolResult> {
  return (await withDeadline(
    server.client.callTool({ name, arguments: args as Record<string, unknown> }),
    30_000,
    `tools/call ${name}`,
  )) as CallToolResult;
}

/** Hostile arguments for every tool of the served conda, through the server over stdio. */
async function everyRefusalReachesTheClient(): Promise<void> {
  let sent = 0;
  for (const [index, command] of commands.entries()) {
    const name = command.toolName as string;
    const schema = buildInputSchema(command);
    const refusals = fc
      .sample(hostileArgsArb(command, optionStringsOf.get(command) ?? []), {
        numRuns: 400,
        seed: SEED + index,
      })
      .filter(
        (input): input is Record<string, unknown> =>
          input !== null && typeof input === "object" && !Array.isArray(input),
      )
      .map((input) => ({
        input,
        expected: validateArgs(command, schema, withoutProtoKey(input)),
      }))
      .filter(({ expected }) => !expected.success)
      .slice(0, REFUSALS_PER_TOOL);
    expect(refusals.length).toBe(REFUSALS_PER_TOOL);
    const results = await Promise.all(refusals.map(({ input }) => call(name, input)));
    for (const [i, result] of results.entries()) {
      const { input, expected } = refusals[i] as (typeof refusals)[number];
      if (expected.success) continue;
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(text(result)).toBe(
        [
          `Invalid arguments for ${name}:`,
          ...expected.issues.map((issue) => `- ${issue.path}: ${issue.message}`),
        ].join("\n"),
      );
      const vocabulary = [
        `Invalid arguments for ${name}`,
        JSON.stringify(schema.jsonSchema),
        ...Object.keys(input),
      ].join("\n");
      for (const value of submittedStrings(input)) {
        if (value.length >= 4 && !vocabulary.includes(value))
          expect(text(result)).not.toContain(value);
      }
      sent++;
    }
  }
  expect(sent).toBe(commands.length * REFUSALS_PER_TOOL);
  const info = await call("conda_info", { json: true });
  expect((info.structuredContent as { exit_code: number }).exit_code).toBe(0);
}

describe("hostile tool arguments through the real server over stdio", () => {
  beforeAll(async () => {
    fixture = await makeFixtureConda({ withCompletion: "0.3.2" });
    await serveConda(fixture.condaExe, fixture.python, fixture.env);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await fixture?.cleanup();
  });

  test(
    "every refusal reaches the client as the same path-naming tool error, and the server keeps serving",
    everyRefusalReachesTheClient,
    120_000,
  );

  test("arguments that are not an object are an invalid-params protocol error", async () => {
    for (const args of [[], ["--json"], "--json", 5, null]) {
      const error = await withDeadline(
        server.client
          .callTool({ name: "conda_info", arguments: args as unknown as Record<string, unknown> })
          .then(
            () => null,
            (e: unknown) => e,
          ),
        30_000,
        "tools/call with non-object arguments",
      );
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32602);
      expect((error as McpError).message).not.toContain("--json");
    }
  }, 60_000);

  test("an own __proto__ property neither sets inherited arguments nor reaches conda", async () => {
    const result = await call(
      "conda_list",
      JSON.parse('{"__proto__": {"json": true, "name": "demo"}, "fields": "name"}'),
    );
    expect(result.isError).toBe(false);
    const echoed = (result.structuredContent as { parsed_json: { args: Record<string, unknown> } })
      .parsed_json.args;
    expect(echoed.json).not.toBe(true);
    expect(echoed.name).not.toBe("demo");
    expect(echoed.list_fields).toEqual(["name"]);
  }, 60_000);
});

describeRealConda("hostile tool arguments through the server on the real conda", () => {
  let sandbox: RealCondaSandbox;
  beforeAll(async () => {
    sandbox = await makeRealCondaSandbox();
    await serveConda(sandbox.condaExe, sandbox.discovery.installation.python, sandbox.env);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await sandbox?.cleanup();
  });

  test(
    "every refusal reaches the client as the same path-naming tool error, and the server keeps serving",
    everyRefusalReachesTheClient,
    180_000,
  );
});
