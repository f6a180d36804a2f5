import { expect, test } from "bun:test";
import { join } from "node:path";
import {
  BYTECODE_FLAGS,
  binaryName,
  compileArgs,
  ENTRY_POINT,
  hostTarget,
  parseBuildArgs,
  RELEASE_TARGETS,
  REPO_ROOT,
  type ReleaseTarget,
  SAFETY_FLAGS,
  SPLITTING_FLAGS,
} from "../../scripts/build.ts";

test.each([
  ["bun-linux-x64", "conda-mcp-linux-x64"],
  ["bun-linux-arm64", "conda-mcp-linux-arm64"],
  ["bun-linux-x64-musl", "conda-mcp-linux-x64-musl"],
  ["bun-darwin-x64", "conda-mcp-darwin-x64"],
  ["bun-darwin-arm64", "conda-mcp-darwin-arm64"],
  ["bun-windows-x64", "conda-mcp-windows-x64.exe"],
] as [ReleaseTarget, string][])("%s is released as %s", (target, name) => {
  expect(binaryName(target)).toBe(name);
});

test("every target has a distinct binary name", () => {
  expect(new Set(RELEASE_TARGETS.map(binaryName)).size).toBe(RELEASE_TARGETS.length);
});

test("every compile carries both autoload switches and splitting, with and without bytecode", () => {
  for (const target of [null, ...RELEASE_TARGETS]) {
    for (const bytecode of [true, false]) {
      const args = compileArgs(target, bytecode, "/out/x");
      expect(args.slice(0, 2)).toEqual(["build", "--compile"]);
      for (const flag of [...SAFETY_FLAGS, ...SPLITTING_FLAGS]) expect(args).toContain(flag);
      for (const flag of BYTECODE_FLAGS) expect(args.includes(flag)).toBe(bytecode);
      expect(args.includes(`--target=${target}`)).toBe(target !== null);
      expect(args.slice(-3)).toEqual([ENTRY_POINT, "--outfile", "/out/x"]);
    }
  }
  expect(SAFETY_FLAGS).toEqual(["--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig"]);
});

test.each([
  [[], { target: "host", bytecode: true, outdir: join(REPO_ROOT, "dist") }],
  [["--target", "all"], { target: "all", bytecode: true, outdir: join(REPO_ROOT, "dist") }],
  [
    ["--target=bun-windows-x64", "--no-bytecode", "--outdir", "/tmp/out"],
    { target: "bun-windows-x64", bytecode: false, outdir: "/tmp/out" },
  ],
])("build arguments %p", (argv, expected) => {
  expect(parseBuildArgs(argv)).toEqual(expected as ReturnType<typeof parseBuildArgs>);
});

test.each([
  [["--target", "bun-linux-riscv"], "--target takes host, all or one of"],
  [["--target"], "--target needs a value"],
  [["--bytecode"], "unknown argument"],
  [["--no-bytecode=yes"], "unknown argument"],
])("bad build arguments %p are refused", (argv, message) => {
  expect(() => parseBuildArgs(argv)).toThrow(message);
});

test.each([
  ["linux", "x64", true, "bun-linux-x64"],
  ["linux", "x64", false, "bun-linux-x64-musl"],
  ["linux", "arm64", true, "bun-linux-arm64"],
  ["darwin", "arm64", true, "bun-darwin-arm64"],
  ["darwin", "x64", true, "bun-darwin-x64"],
  ["win32", "x64", false, "bun-windows-x64"],
] as [NodeJS.Platform, string, boolean, string][])(
  "the host %s-%s (glibc %p) builds %s",
  (platform, arch, glibc, target) => {
    expect(hostTarget(platform, arch, glibc)).toBe(target as ReleaseTarget);
  },
);

test("a host without a release target is refused by name", () => {
  expect(() => hostTarget("freebsd", "x64", false)).toThrow("no release target for freebsd-x64");
  expect(() => hostTarget("linux", "arm64", false)).toThrow("no release target for linux-arm64");
});
