import { describe, expect, test } from "bun:test";
import { compareVersions } from "../../src/completion/compare-versions.ts";
import { runPython } from "./manifest-fixture.ts";

const ROWS: [a: string, b: string, expected: -1 | 0 | 1 | null][] = [
  ["0.3", "0.3", 0],
  ["0.3.0", "0.3", 0],
  ["0.3.2", "0.3", 1],
  ["0.2.9", "0.3", -1],
  ["0.2.1", "0.3", -1],
  ["0.1.0", "0.3", -1],
  ["1.0.0rc1", "0.3", 1],
  ["0.10", "0.9", 1],
  ["0.3.0rc1", "0.3", -1],
  ["0.3a1", "0.3b1", -1],
  ["0.3.0c1", "0.3.0rc1", 0],
  ["0.3.dev0", "0.3a1", -1],
  ["0.3a1.dev1", "0.3a1", -1],
  ["0.3.post1", "0.3", 1],
  ["0.3-1", "0.3.post1", 0],
  ["0.3.post1.dev1", "0.3.post1", -1],
  ["0.3.post1.dev1", "0.3", 1],
  ["0.3+local.7", "0.3", 1],
  ["0.3+local.7", "0.3+local.10", -1],
  ["0.3+abc", "0.3+7", -1],
  ["0.3+a.b", "0.3+a", 1],
  ["0.3+A", "0.3+a", 0],
  ["v0.3", "0.3", 0],
  ["0.3.0RC1", "0.3.0rc1", 0],
  ["1!0.1", "2.0", 1],
  ["00.003", "0.3", 0],
  ["99999999999999999999.0", "99999999999999999998.0", 1],
  ["garbage", "0.3", null],
  ["", "0.3", null],
  ["0.3", "0.3.x", null],
];

describe("compareVersions", () => {
  test.each(ROWS)("%s vs %s", (a, b, expected) => {
    const result = compareVersions(a, b);
    expect(result === null ? null : Math.sign(result)).toBe(expected);
    // Antisymmetric: swapping the arguments flips the sign.
    if (result !== null) {
      expect(Math.sign(compareVersions(b, a) ?? Number.NaN) + Math.sign(result)).toBe(0);
    }
  });
});

// The same table, judged by the real `packaging` library when the machine has it.
const PACKAGING_COMPARE = `
import json, sys
from packaging.version import InvalidVersion, Version
out = []
for a, b in json.loads(sys.stdin.read()):
    try:
        x, y = Version(a), Version(b)
        out.append((x > y) - (x < y))
    except InvalidVersion:
        out.append(None)
print(json.dumps(out))
`;

describe("compareVersions against packaging.version", () => {
  const python = Bun.which("python3");
  const hasPackaging =
    python !== null &&
    Bun.spawnSync([python, "-c", "import packaging.version"], { timeout: 20_000 }).exitCode === 0;
  if (!hasPackaging) console.warn("skipped: no python3 with `packaging` to compare against");

  test.skipIf(!hasPackaging)("orders every row as packaging does", async () => {
    if (python === null) return;
    const pairs = ROWS.map(([a, b]) => [a, b]);
    const stdout = await runPython(python, PACKAGING_COMPARE, {
      stdin: JSON.stringify(pairs),
      env: { PATH: process.env.PATH ?? "" },
    });
    const theirs = JSON.parse(stdout) as (number | null)[];
    const ours = ROWS.map(([a, b]) => {
      const result = compareVersions(a, b);
      return result === null ? null : Math.sign(result) || 0;
    });
    expect(ours).toEqual(theirs);
  });
});
