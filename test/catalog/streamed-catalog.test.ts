import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildCatalog } from "../../src/catalog/build-catalog.ts";
import { credentialValues } from "../../src/catalog/credential-values.ts";
import { parseConfig } from "../../src/config.ts";
import { discoverCatalog } from "../../src/discover-catalog.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { describeRealConda, REAL_CONDA } from "../support/real-conda.ts";

const SECRET = "environment";

/**
 * A fresh start's catalog, built a command at a time as Python's lines come, beside the catalog
 * built from the whole tree that start ends up with.
 */
async function streamedAndWhole(condaExe: string, env: Record<string, string>) {
  // A credential value found in conda's help, so that both builds must redact alike.
  const withSecret = { ...env, CONDA_MCP_TEST_TOKEN: SECRET };
  const config = parseConfig(["--conda", condaExe, "--no-cache"], {
    env: withSecret,
    platform: process.platform,
    home: env.HOME ?? "/",
    cwd: env.HOME ?? "/",
  });
  const { discovery, catalog } = await discoverCatalog(config, () => {});
  const whole = buildCatalog(discovery.tree, {
    secretValues: credentialValues(withSecret),
    preParser: discovery.preParser,
  });
  return { streamed: catalog, whole, source: discovery.installation.source };
}

function catalogCases(sides: () => Awaited<ReturnType<typeof streamedAndWhole>>) {
  test("a fresh start's streamed catalog is the catalog of its whole tree", () => {
    const { streamed, whole, source } = sides();
    expect(source).toBe("introspection");
    expect(streamed.commands.length).toBeGreaterThan(20);
    expect(streamed).toEqual(whole);
    const descriptions = streamed.commands.flatMap((c) => c.params.map((p) => p.description));
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
