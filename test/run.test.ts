import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runProgram } from "./support/run-program.ts";

const ENTRY = join(import.meta.dir, "..", "src", "run.ts");

/** Runs a script in a fresh bun (this process may have built the SDK's schemas already). */
const runBun = (script: string) =>
  runProgram([process.execPath, "-e", script], {
    env: process.env,
    timeoutMs: 30_000,
    cwd: join(import.meta.dir, ".."),
  });

/**
 * In a fresh process (this one may have built the SDK's schemas already): counts zod's
 * compilations (each is a `new Function`) while the SDK's schemas load and parse one valid and
 * one invalid `initialize` and a tool result, with or without interpretZodSchemas() first.
 */
async function firstParses(interpret: boolean) {
  const script = `
    import { interpretZodSchemas } from ${JSON.stringify(ENTRY)};
    if (${interpret}) interpretZodSchemas();
    let compiled = 0;
    globalThis.Function = new Proxy(Function, {
      construct(target, args) { compiled++; return Reflect.construct(target, args); },
    });
    const { InitializeRequestSchema, CallToolResultSchema } = await import("@modelcontextprotocol/sdk/types.js");
    const params = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } };
    const valid = InitializeRequestSchema.safeParse({ method: "initialize", params }).success;
    const invalid = InitializeRequestSchema.safeParse({ method: "initialize", params: { ...params, clientInfo: 1 } }).success;
    const result = CallToolResultSchema.safeParse({ content: [{ type: "text", text: "x" }], structuredContent: { exit_code: 0 } }).success;
    console.log(JSON.stringify({ compiled, valid, invalid, result }));
  `;
  const run = await runBun(script);
  expect(run.stderr).toBe("");
  expect(run.exitCode).toBe(0);
  return JSON.parse(run.stdout) as {
    compiled: number;
    valid: boolean;
    invalid: boolean;
    result: boolean;
  };
}

describe("interpretZodSchemas", () => {
  test("the SDK's schemas then parse as before without compiling a parser", async () => {
    // Without it, zod compiles: the count sees what the setting saves.
    const compiling = await firstParses(false);
    expect(compiling.compiled).toBeGreaterThan(0);
    const interpreting = await firstParses(true);
    expect(interpreting.compiled).toBe(0);
    expect(interpreting).toEqual({ ...compiling, compiled: 0 });
    expect(interpreting).toEqual({ compiled: 0, valid: true, invalid: false, result: true });
  });

  test("reaches a zod that was loaded before it", async () => {
    const script = `
      const core = await import("zod/v4/core");
      const { interpretZodSchemas } = await import(${JSON.stringify(ENTRY)});
      interpretZodSchemas();
      console.log(JSON.stringify(core.globalConfig.jitless));
    `;
    const run = await runBun(script);
    expect(run.exitCode).toBe(0);
    expect(run.stdout.trim()).toBe("true");
  });
});
