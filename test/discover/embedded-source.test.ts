import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { INTROSPECT_SOURCE } from "../../src/discover/start-introspection.ts";
import { runProgram } from "../support/run-program.ts";

const INTROSPECT_TS = join(
  import.meta.dir,
  "..",
  "..",
  "src",
  "discover",
  "start-introspection.ts",
);
const BUN = process.execPath;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "conda-mcp-embed-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

test("introspect.py is embedded as text, also in a compiled binary", async () => {
  const onDisk = await Bun.file(
    join(import.meta.dir, "..", "..", "src", "discover", "introspect.py"),
  ).text();
  expect(INTROSPECT_SOURCE).toBe(onDisk);

  const entry = join(dir, "print-source.ts");
  await writeFile(
    entry,
    `import { INTROSPECT_SOURCE } from ${JSON.stringify(INTROSPECT_TS)};\nprocess.stdout.write(INTROSPECT_SOURCE);\n`,
  );
  const binary = join(dir, "print-source");
  const env = { PATH: process.env.PATH, HOME: dir };
  const build = await runProgram(
    [
      BUN,
      "build",
      "--compile",
      "--no-compile-autoload-dotenv",
      "--no-compile-autoload-bunfig",
      entry,
      "--outfile",
      binary,
    ],
    { env, timeoutMs: 120_000 },
  );
  expect(build.exitCode).toBe(0);
  const run = await runProgram([binary], { env, timeoutMs: 30_000 });
  expect(run.exitCode).toBe(0);
  expect(run.stdout).toBe(onDisk);
}, 150_000);
