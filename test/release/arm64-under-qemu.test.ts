import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
  parseQemuArgs,
  qemuUnavailable,
  runArm64UnderQemu,
} from "../../scripts/run-arm64-under-qemu.ts";
import { runProgram } from "../support/run-program.ts";

const SCRIPT = join(import.meta.dir, "..", "..", "scripts", "run-arm64-under-qemu.ts");

const unavailable = qemuUnavailable();
if (unavailable) console.warn(`skipping test/release/arm64-under-qemu.test.ts: ${unavailable}`);
const label = unavailable
  ? `the linux-arm64 binary under qemu-user (skipped: ${unavailable})`
  : "the linux-arm64 binary under qemu-user";

describe.skipIf(unavailable !== null)(label, () => {
  test("the script cross-builds it and runs --version, catalog and an MCP session", async () => {
    const run = await runProgram([process.execPath, SCRIPT], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" },
      timeoutMs: 600_000,
    });
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    for (const step of ["build conda-mcp-linux-arm64", "--version", "catalog", "MCP session"]) {
      expect(run.stdout).toContain(`ok  ${step}`);
    }
    expect(run.stdout).toEndWith("the linux-arm64 binary runs under qemu-aarch64\n");
  }, 620_000);

  // This bun is an x86-64 ELF file wherever qemu-aarch64 is needed at all.
  test.skipIf(process.arch === "arm64")(
    "a binary that is not AArch64 (this bun) is refused before qemu runs it",
    async () => {
      const binary = process.execPath;
      await expect(runArm64UnderQemu({ binary, bytecode: false })).rejects.toThrow(
        "is not an AArch64 ELF binary",
      );
    },
  );
});

test.each([
  [[], { binary: null, bytecode: true }],
  [["--binary", "/tmp/b", "--no-bytecode"], { binary: "/tmp/b", bytecode: false }],
  [["--binary=/tmp/b"], { binary: "/tmp/b", bytecode: true }],
])("qemu script arguments %p", (argv, expected) => {
  expect(parseQemuArgs(argv)).toEqual(expected);
});

test.each([
  [["--binary"], "--binary needs a value"],
  [["--target", "bun-linux-arm64"], "unknown argument"],
])("qemu script arguments %p are refused", (argv, message) => {
  expect(() => parseQemuArgs(argv)).toThrow(message);
});
