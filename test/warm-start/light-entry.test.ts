import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const SRC = join(import.meta.dir, "..", "..", "src");
const transpiler = new Bun.Transpiler({ loader: "ts" });

/** A module's source as the checks read it, without its shebang. */
function sourceOf(file: string): string {
  return readFileSync(file, "utf8").replace(/^#!.*/, "");
}

/** Every module main.ts evaluates before its first dynamic import, with what each imports. */
function staticClosure(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    // Type-only imports are erased by the transpiler, as they are by the bundler.
    const imports = transpiler
      .scanImports(sourceOf(file))
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
    expect([...closure.keys()].some((f) => f.endsWith("answer-handshake.ts"))).toBe(true);
    expect([...closure.keys()].some((f) => f.endsWith("startup-snapshot.ts"))).toBe(true);
  });

  // The release binary evaluates a module, and the Node built-ins it imports, when it is first
  // imported (a chunk of its own): what the snapshot path imports is what a warm start pays for
  // before it answers. node:fs/promises costs about 2 ms, the embedded introspection script
  // 1.5 ms and the introspection payload's schemas 2 ms on 2 cores; the path needs none of them.
  test("reads the snapshot without node:fs/promises, the introspection script or its schemas", () => {
    const closure = staticClosure(join(SRC, "main.ts"));
    const files = [...closure.keys()].map((file) => file.slice(SRC.length + 1));
    expect(files.filter((f) => /start-introspection|introspection-payload/.test(f))).toEqual([]);
    const builtins = new Set([...closure.values()].flat().filter((s) => s.startsWith("node:")));
    expect([...builtins].sort()).toEqual(["node:fs", "node:os", "node:path"]);
    // The introspection script's digest, which names the snapshot, is written in cache-key.ts.
    expect(files).toContain("discover/cache-key.ts");
  });
});

describe("every module of the program", () => {
  // bun builds node:crypto with node:stream, and node:util, in several milliseconds of the
  // start or the call that first imports them (Bun.CryptoHasher, the Web Crypto global and
  // Bun.deepEquals do the same work natively).
  test("imports none of node:crypto, node:util and node:stream", () => {
    const heavy = /^(node:)?(crypto|util|stream)(\/|$)/;
    const found = readdirSync(SRC, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
      .flatMap((file) =>
        transpiler
          .scanImports(sourceOf(join(SRC, file)))
          .filter((i) => heavy.test(i.path))
          .map((i) => `${file}: ${i.path}`),
      );
    expect(found).toEqual([]);
    // The scan sees such an import where there is one.
    expect(transpiler.scanImports('import { createHash } from "node:crypto";')).toHaveLength(1);
  });

  // process.stdin and process.stdout are Node streams: the first use of either loads Node's
  // stream modules, which took longer than a warm start's whole answer. The protocol goes
  // through Bun.stdin.stream() and Bun.stdout.writer(); only --help, --version and `catalog`
  // print through process.stdout.
  test("serves stdio without process.stdin or process.stdout", () => {
    // Comments may name them; the code, as the transpiler leaves it, may not.
    const uses = (pattern: RegExp) =>
      readdirSync(SRC, { recursive: true, encoding: "utf8" })
        .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
        .filter((file) => pattern.test(transpiler.transformSync(sourceOf(join(SRC, file)))))
        .sort();
    expect(uses(/process\.stdin\b/)).toEqual([]);
    // main.ts for --help, --version and setup; run.ts for `catalog`.
    expect(uses(/process\.stdout\b/)).toEqual(["main.ts", "run.ts"]);
  });
});

/** The packages a set of modules' static closure imports. */
function packagesOf(entries: string[]): string[] {
  const closures = entries.map((entry) => staticClosure(entry));
  const imports = closures.flatMap((closure) => [...closure.values()].flat());
  return [...new Set(imports.filter((s) => !s.startsWith(".") && !s.startsWith("node:")))];
}

describe("a warm start's first call", () => {
  // After the snapshot answered, run.ts loads what the first call needs before conda's spawn:
  // with chunks, each module it imports is loaded then, on the call's way.
  test("loads no writer, rehearsal, embedded Python script or manifest reader before conda is spawned", () => {
    // run.ts, what it imports itself, and what loadServerStart imports for the call.
    const run = readFileSync(join(SRC, "run.ts"), "utf8");
    const serverStart = /async function loadServerStart\(\) \{[\s\S]*?\n\}/.exec(run)?.[0] ?? "";
    const starts = transpiler.scanImports(serverStart).map((i) => i.path.replace(/^\.\//, ""));
    expect(starts).toContain("server/prepare-server.ts");
    const ways = ["run.ts", ...starts];
    const loaded = ways.flatMap((way) =>
      [...staticClosure(join(SRC, way)).keys()].map((file) => file.slice(SRC.length + 1)),
    );
    const unused =
      /write-(cache-file|startup)|rehearse|recorder|start-introspection|find-call-facts/;
    expect([...new Set(loaded.filter((file) => unused.test(file)))]).toEqual([]);
    // conda-completion's manifest reader (msgpack, node:fs/promises, the manifest's schema)
    // loads with the first conda_cli_command call: about 3 ms of every other first call.
    const imported = ways.flatMap((way) => [...staticClosure(join(SRC, way)).values()].flat());
    const reader = /^msgpackr|^node:fs\/promises$|read-manifest|validate-manifest/;
    expect([...new Set(imported.filter((specifier) => reader.test(specifier)))]).toEqual([]);
    // The walk reaches the serving pipeline (the call's own modules).
    expect(loaded).toContain("execute/run-process.ts");
    expect(loaded).toContain("discover/catalog-cache.ts");
  });
});

describe("a start without a snapshot", () => {
  // A cold start or one from the catalog cache answers a plain handshake from its own catalog
  // (composeHandshake), and only then loads the SDK, whose zod schemas take about 16 ms.
  test("loads no module of the MCP SDK before it answers the handshake", () => {
    const run = join(SRC, "run.ts");
    const dynamic = transpiler
      .scanImports(readFileSync(run, "utf8"))
      .filter((i) => i.kind === "dynamic-import")
      .map((i) => i.path);
    // The SDK's two ways in, which run.ts takes only once answered (or for another first line).
    const sdkWays = ["./server/serve.ts", "./stdio/stdio-line-transport.ts"];
    expect(sdkWays.every((way) => dynamic.includes(way))).toBe(true);
    const before = dynamic.filter((path) => !sdkWays.includes(path));
    expect(before).toContain("./warm-start/compose-handshake.ts");
    const packages = packagesOf([run, ...before.map((path) => resolve(SRC, path))]);
    expect(packages.filter((p) => p.startsWith("@modelcontextprotocol/"))).toEqual([]);
    // The check sees the SDK where it is imported.
    expect(packagesOf([join(SRC, "server", "serve.ts")])).toContain(
      "@modelcontextprotocol/sdk/server/index.js",
    );
  });
});
