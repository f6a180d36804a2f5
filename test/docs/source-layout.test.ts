import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const REPO = join(import.meta.dir, "..", "..");
const SRC = join(REPO, "src");
const README = readFileSync(join(REPO, "README.md"), "utf8");

/** Every file under src/, as a path relative to it. */
const FILES: string[] = readdirSync(SRC, { recursive: true, encoding: "utf8" })
  .filter((file) => /\.[a-z]+$/.test(file))
  .sort();

// Modules whose size is no measure of their concept: the entry points, declarations and data.
const ENTRY_POINTS = new Set(["main.ts", "run.ts", "create-conda-mcp-server.ts"]);
const MIN_LINES = 25;

/** The relative modules a source file imports, type-only imports too, as paths under src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), "utf8");
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)];
  return specifiers.map((match) =>
    relative(SRC, resolve(dirname(join(SRC, file)), match[1] ?? "")),
  );
}

/** The import circles among src/'s modules, each as the files on it. */
function importCircles(): string[][] {
  const edges = new Map(FILES.filter((f) => f.endsWith(".ts")).map((f) => [f, importsOf(f)]));
  const circles: string[][] = [];
  const done = new Set<string>();
  const visit = (file: string, path: string[]) => {
    const at = path.indexOf(file);
    if (at >= 0) {
      circles.push(path.slice(at));
      return;
    }
    if (done.has(file)) return;
    for (const next of edges.get(file) ?? []) visit(next, [...path, file]);
    done.add(file);
  };
  for (const file of edges.keys()) visit(file, []);
  return circles;
}

describe("the source tree", () => {
  test("has no import circle", () => {
    expect(importCircles()).toEqual([]);
  });

  test("keeps the entry points and what every stage shares at its root, at most six files", () => {
    const root = FILES.filter((file) => !file.includes("/"));
    expect(root.length).toBeLessThanOrEqual(6);
    for (const entry of ENTRY_POINTS) expect(root).toContain(entry);
  });

  test.each([
    ["discover", 12],
    ["execute", 5],
  ])("holds at most so many files in %s/", (folder, most) => {
    expect(FILES.filter((file) => file.startsWith(`${folder}/`)).length).toBeLessThanOrEqual(most);
  });

  // One concept per file, not one function per file: a helper of a few lines lives with its user.
  test("has no module of fewer than 25 lines but entry points, declarations and data", () => {
    const small = FILES.filter(
      (file) => file.endsWith(".ts") && !file.endsWith(".d.ts") && !ENTRY_POINTS.has(file),
    ).filter(
      (file) => readFileSync(join(SRC, file), "utf8").trimEnd().split("\n").length < MIN_LINES,
    );
    expect(small).toEqual([]);
  });

  test("is mapped file by file in the README's layout section", () => {
    const layout = README.slice(
      README.indexOf("## Layout"),
      README.indexOf("## Build and release"),
    );
    const unnamed = FILES.filter((file) => !layout.includes(file.split("/").pop() ?? file));
    expect(unnamed).toEqual([]);
  });
});
