import { expect, test } from "bun:test";
import { userCacheDir } from "../../src/discover/user-cache-dir.ts";

test.each([
  ["linux", {}, "/home/u", "/home/u/.cache/conda-mcp"],
  ["linux", { XDG_CACHE_HOME: "/xdg/cache" }, "/home/u", "/xdg/cache/conda-mcp"],
  ["linux", { XDG_CACHE_HOME: "relative/cache" }, "/home/u", "/home/u/.cache/conda-mcp"],
  ["linux", { XDG_CACHE_HOME: "" }, "/home/u", "/home/u/.cache/conda-mcp"],
  ["freebsd", { XDG_CACHE_HOME: "/xdg" }, "/home/u", "/xdg/conda-mcp"],
  ["darwin", {}, "/Users/u", "/Users/u/Library/Caches/conda-mcp"],
  ["darwin", { XDG_CACHE_HOME: "/xdg" }, "/Users/u", "/Users/u/Library/Caches/conda-mcp"],
  [
    "win32",
    { LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local" },
    "C:\\Users\\u",
    "C:\\Users\\u\\AppData\\Local\\conda-mcp\\Cache",
  ],
  ["win32", {}, "C:\\Users\\u", "C:\\Users\\u\\AppData\\Local\\conda-mcp\\Cache"],
  [
    "win32",
    { LOCALAPPDATA: "relative" },
    "C:\\Users\\u",
    "C:\\Users\\u\\AppData\\Local\\conda-mcp\\Cache",
  ],
  ["linux", {}, "", null],
  ["linux", {}, "relative/home", null],
  ["linux", { XDG_CACHE_HOME: "/xdg" }, "", "/xdg/conda-mcp"],
  ["darwin", {}, "", null],
  ["win32", {}, "", null],
] as const)("on %s with %j and home %j the cache folder is %j", (platform, env, home, expected) => {
  expect(userCacheDir({ env, platform, home })).toBe(expected);
});
