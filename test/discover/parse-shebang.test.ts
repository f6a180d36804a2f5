import { describe, expect, test } from "bun:test";
import { detectBinaryFormat } from "../../src/discover/detect-binary-format.ts";
import { parseShebang } from "../../src/discover/parse-shebang.ts";

describe("parseShebang", () => {
  test.each([
    [
      "#!/opt/conda/bin/python\nimport sys\n",
      { kind: "direct", interpreter: "/opt/conda/bin/python", argument: null },
    ],
    [
      "#! /opt/conda/bin/python -E\r\n",
      { kind: "direct", interpreter: "/opt/conda/bin/python", argument: "-E" },
    ],
    ["#!/usr/bin/env python\n", { kind: "env", program: "python" }],
    ["#!/usr/bin/env -S python3 -E\n", { kind: "env", program: "python3" }],
    ["#!/usr/bin/env PYTHONNOUSERSITE=1 python\n", { kind: "env", program: "python" }],
    [
      `#!/bin/sh\n'''exec' "/long path/with space/bin/python" "$0" "$@" #'''\n# -*- coding: utf-8 -*-\n`,
      { kind: "sh-trampoline", interpreter: "/long path/with space/bin/python" },
    ],
    [
      `#!/bin/sh\n'''exec' /opt/c/bin/python "$0" "$@"\n' '''\n`,
      { kind: "sh-trampoline", interpreter: "/opt/c/bin/python" },
    ],
    [
      '#!/bin/bash\nexec "/opt/conda/bin/python" -m conda "$@"\n',
      { kind: "shell", interpreter: "/bin/bash" },
    ],
  ])("%j", (head, expected) => {
    expect(parseShebang(head)).toEqual(expected as ReturnType<typeof parseShebang>);
  });

  test.each([["import sys\n"], [""], ["#!\n"], ["#!/usr/bin/env\n"]])(
    "%j names no interpreter",
    (head) => {
      expect(parseShebang(head)).toBeNull();
    },
  );
});

describe("detectBinaryFormat", () => {
  test.each([
    [[0x7f, 0x45, 0x4c, 0x46, 2, 1], "elf"],
    [[0x4d, 0x5a, 0x90, 0], "pe"],
    [[0xcf, 0xfa, 0xed, 0xfe], "mach-o"],
    [[0xca, 0xfe, 0xba, 0xbe], "mach-o"],
    [[0x23, 0x21, 0x2f, 0x62], null],
    [[0x7f], null],
  ])("%j is %s", (bytes, expected) => {
    expect(detectBinaryFormat(Uint8Array.from(bytes))).toBe(
      expected as ReturnType<typeof detectBinaryFormat>,
    );
  });
});
