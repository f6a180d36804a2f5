import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildCatalog, createStreamedCatalog } from "../../src/catalog/build-catalog.ts";
import type { Catalog } from "../../src/catalog/catalog-types.ts";
import { credentialValues } from "../../src/catalog/redact-secrets.ts";
import { resolvePython } from "../../src/discover/resolve-python.ts";
import { expandDocument } from "../support/expand-document.ts";
import { introspectPython } from "../support/introspect-python.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { describeRealConda, REAL_CONDA } from "../support/real-conda.ts";

// A credential value found in conda's help, so that both builds must redact alike.
const SECRET = "environment";

/**
 * The catalog a cold start builds a command at a time as Python's lines come, beside the
 * catalog of the whole tree the same introspection ends with.
 */
async function streamedAndWhole(condaExe: string, env: Record<string, string>) {
  const secretValues = credentialValues({ ...env, CONDA_MCP_TEST_TOKEN: SECRET });
  const host = { env, platform: process.platform, timeoutMs: 120_000 };
  const { python } = await resolvePython(condaExe, host);
  const streamed = createStreamedCatalog(secretValues);
  let commands = 0;
  const document = await introspectPython(python, {
    ...host,
    onCommand: (command, facts) => {
      commands++;
      streamed.onCommand(command, facts);
    },
  });
  const { tree, pre_parser } = expandDocument(document);
  const whole = buildCatalog(tree, { secretValues, preParser: pre_parser });
  return { streamed: streamed.finish(), whole, commands, topLevel: tree.subcommands.length };
}

function catalogCases(sides: () => Awaited<ReturnType<typeof streamedAndWhole>>) {
  test("a cold start's streamed catalog is the catalog of its whole tree", () => {
    const { streamed, whole, commands, topLevel } = sides();
    // Every top-level command came through the stream, once.
    expect(commands).toBe(topLevel);
    expect(streamed).not.toBeNull();
    const catalog = streamed as Catalog;
    expect(catalog.commands.length).toBeGreaterThan(20);
    expect(catalog).toEqual(whole);
    const descriptions = catalog.commands.flatMap((c) => c.params.map((p) => p.description));
    expect(descriptions.some((text) => text.includes(SECRET))).toBe(false);
  });
}

describe("the catalog a cold start builds as the fixture conda's lines come", () => {
  let fixture: FixtureConda;
  let sides: Awaited<ReturnType<typeof streamedAndWhole>>;
  beforeAll(async () => {
    fixture = await makeFixtureConda();
    sides = await streamedAndWhole(fixture.condaExe, fixture.env);
  }, 60_000);
  afterAll(() => fixture?.cleanup());

  catalogCases(() => sides);
});

describeRealConda("the catalog a cold start builds as the real conda's lines come", () => {
  let sides: Awaited<ReturnType<typeof streamedAndWhole>>;
  beforeAll(async () => {
    sides = await streamedAndWhole(
      REAL_CONDA as string,
      { ...process.env } as Record<string, string>,
    );
  }, 120_000);

  catalogCases(() => sides);
});
