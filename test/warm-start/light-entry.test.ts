import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const SRC = join(import.meta.dir, "..", "..", "src");
const transpiler = new Bun.Transpiler({ loader: "ts" });

/** Every module main.ts evaluates before its first dynamic import, with what each imports. */
function staticClosure(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    // Type-only imports are erased by the transpiler, as they are by the bundler.
    const imports = transpiler
      .scanImports(readFileSync(file, "utf8").replace(/^#!.*/, ""))
      .filter((i) => i.kind === "import-statement")
      .map((i) => i.path);
    seen.set(file, imports);
    for (const specifier of imports) {
      if (specifier.startsWith(".") && specifier.endsWith(".ts")) {
        visit(resolve(dirname(file), specifier));
      }
    }
  };
  visit(entry);
  return seen;
}

describe("the program's entry", () => {
  // A warm start answers the handshake before anything heavy is evaluated: the SDK's zod
  // schemas alone take longer than the whole answer. Only run.ts, loaded later, may use them.
  // valibot (the snapshot's and cache's shapes) costs well under a millisecond to load.
  test("imports no package but valibot and none of the serving pipeline before the handshake", () => {
    const closure = staticClosure(join(SRC, "main.ts"));
    const packages = [...closure.values()]
      .flat()
      .filter((s) => !s.startsWith(".") && !s.startsWith("node:") && s !== "valibot");
    expect(packages).toEqual([]);
    const heavy = [...closure.keys()]
      .map((file) => file.slice(SRC.length + 1))
      .filter(
        (file) =>
          /^(schema|catalog\/build|execute|result|completion)\//.test(file) || file === "run.ts",
      );
    expect(heavy).toEqual([]);
    // The closure really was walked: the answerer and the snapshot reader are in it.
    expect([...closure.keys()].some((f) => f.endsWith("answer-from-snapshot.ts"))).toBe(true);
    expect([...closure.keys()].some((f) => f.endsWith("startup-snapshot.ts"))).toBe(true);
  });
});
