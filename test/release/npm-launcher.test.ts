import { expect, test } from "bun:test";
import { join } from "node:path";
import { RELEASE_TARGETS } from "../../scripts/build.ts";
import { NPM_PLATFORMS, NPM_SCOPE } from "../../scripts/build-npm-packages.ts";

// The launcher is the plain-Node file that npm installs as the `conda-mcp` command.
const { platformKey, locateBinary, SCOPE } = require("../../scripts/npm-launcher.cjs") as {
  platformKey(platform: string, arch: string, musl: boolean): string;
  locateBinary(
    key: string,
    manifest: { version: string; optionalDependencies?: Record<string, string> },
    resolve: (request: string) => string,
  ): { binary?: string; error?: string };
  SCOPE: string;
};

test.each([
  ["linux", "x64", false, "linux-x64"],
  ["linux", "x64", true, "linux-x64-musl"],
  ["linux", "arm64", false, "linux-arm64"],
  ["linux", "arm64", true, "linux-arm64-musl"],
  ["darwin", "arm64", false, "darwin-arm64"],
  ["darwin", "x64", true, "darwin-x64"],
  ["win32", "x64", false, "win32-x64"],
])("on %s %s (musl: %p) the launcher looks for the %s package", (platform, arch, musl, key) => {
  expect(platformKey(platform, arch, musl)).toBe(key);
});

test("each release target's package is the one the launcher looks for on that platform", () => {
  expect(SCOPE).toBe(NPM_SCOPE);
  for (const target of RELEASE_TARGETS) {
    const { key, os, cpu, libc } = NPM_PLATFORMS[target];
    expect(platformKey(os, cpu, libc === "musl")).toBe(key);
  }
});

const MANIFEST = {
  version: "1.2.3",
  optionalDependencies: { "@conda-mcp/linux-x64": "1.2.3", "@conda-mcp/win32-x64": "1.2.3" },
};
const notFound = (request: string): string => {
  throw new Error(`Cannot find module '${request}'`);
};

test("a platform no package is built for is named with the ones that exist", () => {
  expect(locateBinary("linux-arm64-musl", MANIFEST, notFound).error).toBe(
    "conda-mcp 1.2.3 has no binary for this platform (linux-arm64-musl); it is built for linux-x64, win32-x64.",
  );
});

test("a missing platform package is named with the command that installs it", () => {
  const { error } = locateBinary("linux-x64", MANIFEST, notFound);
  expect(error).toContain("the package @conda-mcp/linux-x64, which holds the conda-mcp binary");
  expect(error).toContain("--omit=optional");
  expect(error).toContain("\n  npm install @conda-mcp/linux-x64@1.2.3\n");
});

test("a platform package of another version is refused, naming both versions", () => {
  const fixtures = join(import.meta.dir, "launcher-fixtures");
  const resolve = (request: string) => join(fixtures, request.replace("@conda-mcp/", ""));
  const { error } = locateBinary("linux-x64", MANIFEST, resolve);
  expect(error).toBe(
    "conda-mcp 1.2.3 needs @conda-mcp/linux-x64 1.2.3, but 1.2.0 is installed. Install the matching one:\n  npm install @conda-mcp/linux-x64@1.2.3",
  );
});
