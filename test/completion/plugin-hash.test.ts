import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { pluginHash } from "../../src/completion/plugin-hash.ts";
import { runPython } from "./manifest-fixture.ts";

// The plugin's own computation, run by a real Python.
const PYTHON_HASH = `
import hashlib, json, sys
for names in json.loads(sys.stdin.read()):
    print(hashlib.sha256("|".join(sorted(names)).encode()).hexdigest()[:16])
`;

const NAME_SETS: [title: string, names: string[]][] = [
  ["no plugins", []],
  ["one plugin", ["conda-completion"]],
  ["several plugins in any order", ["menuinst", "conda-libmamba-solver", "conda-completion"]],
  ["duplicate names are kept", ["b", "a", "a"]],
  ["case sorts by code point (upper before lower)", ["b", "B", "a", "A"]],
  ["characters above U+FFFF sort after U+FF5E, as in Python", ["😀plugin", "～plugin", "z"]],
  ["non-ASCII names hash their UTF-8", ["ünïcode", "plain"]],
];

async function pythonHashes(sets: string[][]): Promise<string[]> {
  const python = Bun.which("python3");
  if (python === null) throw new Error("python3 not found");
  const stdout = await runPython(python, PYTHON_HASH, {
    stdin: JSON.stringify(sets),
    env: { PATH: process.env.PATH ?? "", PYTHONIOENCODING: "utf-8", PYTHONUTF8: "1" },
  });
  return stdout.trim().split("\n");
}

describe("pluginHash", () => {
  const hasPython = Bun.which("python3") !== null;
  if (!hasPython) console.warn("skipped: no python3 on PATH to compute the reference hashes");

  test.skipIf(!hasPython)("matches Python's hashlib over sorted names for every set", async () => {
    const expected = await pythonHashes(NAME_SETS.map(([, names]) => names));
    const table = NAME_SETS.map(([title, names], i) => [title, pluginHash(names), expected[i]]);
    for (const [title, ours, theirs] of table)
      expect({ title, hash: ours }).toEqual({ title, hash: theirs });
  });

  test("is 16 lowercase hex digits and ignores input order", () => {
    const hash = pluginHash(["menuinst", "conda-completion"]);
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    expect(pluginHash(["conda-completion", "menuinst"])).toBe(hash);
  });

  test("does not use JavaScript's UTF-16 sort order", () => {
    const names = ["😀plugin", "～plugin"];
    // Default sort puts the surrogate pair (0xD83D) first; Python puts U+FF5E first.
    const utf16Order = [...names].sort().join("|");
    const utf16Hash = createHash("sha256").update(utf16Order).digest("hex").slice(0, 16);
    expect(pluginHash(names)).not.toBe(utf16Hash);
  });

  test("does not reorder the caller's array", () => {
    const names = ["b", "a"];
    pluginHash(names);
    expect(names).toEqual(["b", "a"]);
  });
});
