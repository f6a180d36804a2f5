import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { FixtureConda } from "./make-fixture-conda.ts";

/** Writes at `file` an interpreter that appends a line `run` to `log`, then execs `python`. */
export async function writeCountingInterpreter(
  file: string,
  log: string,
  python: string,
): Promise<void> {
  await writeFile(file, `#!/bin/sh\necho run >> '${log}'\nexec '${python}' "$@"\n`);
  await chmod(file, 0o755);
}

/**
 * Puts a counting interpreter at `<root>/counted-python`, logging to `<root>/python-runs.log`,
 * and with `shebangs` names it in the fixture conda's scripts (direct shebangs only), so that
 * every Python the server or discovery starts for that conda is one line of the log.
 */
export async function countPythonRuns(
  fixture: FixtureConda,
  shebangs: boolean,
): Promise<{ wrapper: string; runs: () => Promise<number> }> {
  const log = join(fixture.root, "python-runs.log");
  const wrapper = join(fixture.root, "counted-python");
  await writeCountingInterpreter(wrapper, log, fixture.python);
  if (shebangs) {
    for (const script of [fixture.condaExe, join(fixture.prefix, "condabin", "conda")]) {
      const text = await readFile(script, "utf8");
      await writeFile(script, `#!${wrapper}\n${text.slice(text.indexOf("\n") + 1)}`);
    }
  }
  const runs = async () => {
    const text = await readFile(log, "utf8").catch(() => "");
    return text.split("\n").filter((line) => line === "run").length;
  };
  return { wrapper, runs };
}
