import { describe, expect, test } from "bun:test";
import { posix, win32 } from "node:path";
import { type LocateManifestInput, locateManifest } from "../../src/completion/locate-manifest.ts";
import { runPython } from "./manifest-fixture.ts";

const LINUX = { platform: "linux", home: "/home/ada", cwd: "/work" };
const MAC = { platform: "darwin", home: "/Users/ada", cwd: "/work" };
const WIN = { platform: "win32", home: "C:\\Users\\ada", cwd: "D:\\work" };

type Row = [
  title: string,
  base: Omit<LocateManifestInput, "env">,
  env: Record<string, string>,
  pythonCacheDir: string | null,
  expected: string,
];

const ROWS: Row[] = [
  ["linux default", LINUX, {}, null, "/home/ada/.cache/conda/completion/completion.msgpack"],
  [
    "linux XDG_CACHE_HOME",
    LINUX,
    { XDG_CACHE_HOME: "/var/cache/ada" },
    null,
    "/var/cache/ada/conda/completion/completion.msgpack",
  ],
  [
    "linux blank XDG_CACHE_HOME falls back to ~/.cache",
    LINUX,
    { XDG_CACHE_HOME: "  " },
    null,
    "/home/ada/.cache/conda/completion/completion.msgpack",
  ],
  [
    "linux relative XDG_CACHE_HOME is taken as platformdirs takes it (from cwd)",
    LINUX,
    { XDG_CACHE_HOME: "cache" },
    null,
    "/work/cache/conda/completion/completion.msgpack",
  ],
  [
    "other unix uses the XDG rules",
    { ...LINUX, platform: "freebsd" },
    {},
    null,
    "/home/ada/.cache/conda/completion/completion.msgpack",
  ],
  ["macOS default", MAC, {}, null, "/Users/ada/Library/Caches/conda/completion/completion.msgpack"],
  [
    "macOS ignores XDG_CACHE_HOME like platformdirs",
    MAC,
    { XDG_CACHE_HOME: "/tmp/x" },
    null,
    "/Users/ada/Library/Caches/conda/completion/completion.msgpack",
  ],
  [
    "windows LOCALAPPDATA",
    WIN,
    { LOCALAPPDATA: "E:\\Local" },
    null,
    "E:\\Local\\conda\\conda\\Cache\\completion\\completion.msgpack",
  ],
  [
    "windows environment names are case-insensitive",
    WIN,
    { LocalAppData: "E:\\Local" },
    null,
    "E:\\Local\\conda\\conda\\Cache\\completion\\completion.msgpack",
  ],
  [
    "windows without LOCALAPPDATA uses home\\AppData\\Local",
    WIN,
    {},
    null,
    "C:\\Users\\ada\\AppData\\Local\\conda\\conda\\Cache\\completion\\completion.msgpack",
  ],
  [
    "python's platformdirs answer beats our own rules",
    LINUX,
    { XDG_CACHE_HOME: "/var/cache/ada" },
    "/opt/py-cache/conda",
    "/opt/py-cache/conda/completion/completion.msgpack",
  ],
  [
    "python's answer on windows",
    WIN,
    {},
    "C:\\Users\\ada\\AppData\\Local\\conda\\conda\\Cache",
    "C:\\Users\\ada\\AppData\\Local\\conda\\conda\\Cache\\completion\\completion.msgpack",
  ],
  [
    "an empty python answer is ignored",
    LINUX,
    {},
    "",
    "/home/ada/.cache/conda/completion/completion.msgpack",
  ],
  [
    "CONDA_COMPLETION_CACHE_DIR beats everything and names the directory itself",
    LINUX,
    { CONDA_COMPLETION_CACHE_DIR: "/srv/cc", XDG_CACHE_HOME: "/var/cache/ada" },
    "/opt/py-cache/conda",
    "/srv/cc/completion.msgpack",
  ],
  [
    "CONDA_COMPLETION_CACHE_DIR expands ~",
    LINUX,
    { CONDA_COMPLETION_CACHE_DIR: "~/cc" },
    null,
    "/home/ada/cc/completion.msgpack",
  ],
  [
    "CONDA_COMPLETION_CACHE_DIR leaves ~user alone (then resolves from cwd)",
    LINUX,
    { CONDA_COMPLETION_CACHE_DIR: "~bob/cc" },
    null,
    "/work/~bob/cc/completion.msgpack",
  ],
  [
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Python-style ${VAR} under test
    "CONDA_COMPLETION_CACHE_DIR expands $VAR and ${VAR}",
    LINUX,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Python-style ${VAR} under test
    { CONDA_COMPLETION_CACHE_DIR: "$ROOT/${SUB}/cc", ROOT: "/data", SUB: "ada" },
    null,
    "/data/ada/cc/completion.msgpack",
  ],
  [
    "CONDA_COMPLETION_CACHE_DIR keeps unknown variables as written",
    LINUX,
    { CONDA_COMPLETION_CACHE_DIR: "/data/$NOPE/cc" },
    null,
    "/data/$NOPE/cc/completion.msgpack",
  ],
  [
    "a relative CONDA_COMPLETION_CACHE_DIR resolves from cwd",
    LINUX,
    { CONDA_COMPLETION_CACHE_DIR: "cc" },
    null,
    "/work/cc/completion.msgpack",
  ],
  [
    "a relative CONDA_COMPLETION_CACHE_DIR resolves from home when no cwd is given",
    { platform: "linux", home: "/home/ada" },
    { CONDA_COMPLETION_CACHE_DIR: "cc" },
    null,
    "/home/ada/cc/completion.msgpack",
  ],
  [
    "an empty CONDA_COMPLETION_CACHE_DIR is ignored",
    LINUX,
    { CONDA_COMPLETION_CACHE_DIR: "" },
    "/opt/py-cache/conda",
    "/opt/py-cache/conda/completion/completion.msgpack",
  ],
  [
    "~ alone with home at / is /",
    { platform: "linux", home: "/" },
    { CONDA_COMPLETION_CACHE_DIR: "~" },
    null,
    "/completion.msgpack",
  ],
  [
    "windows CONDA_COMPLETION_CACHE_DIR expands %VAR% and ~\\",
    WIN,
    { conda_completion_cache_dir: "%LOCALAPPDATA%\\cc", LOCALAPPDATA: "E:\\Local" },
    null,
    "E:\\Local\\cc\\completion.msgpack",
  ],
  [
    "windows CONDA_COMPLETION_CACHE_DIR expands ~ with a backslash",
    WIN,
    { CONDA_COMPLETION_CACHE_DIR: "~\\cc" },
    null,
    "C:\\Users\\ada\\cc\\completion.msgpack",
  ],
  [
    "windows keeps %% literal and unknown %VAR% as written",
    WIN,
    { CONDA_COMPLETION_CACHE_DIR: "E:\\a%%b\\%NOPE%" },
    null,
    "E:\\a%b\\%NOPE%\\completion.msgpack",
  ],
];

describe("locateManifest", () => {
  test.each(ROWS)("%s", (_title, base, env, pythonCacheDir, expected) => {
    const located = locateManifest({ ...base, env, pythonCacheDir });
    expect(located).toBe(expected);
    const path = base.platform === "win32" ? win32 : posix;
    expect(path.isAbsolute(located)).toBe(true);
  });

  test("reads nothing from the running process's environment", () => {
    const saved = process.env.CONDA_COMPLETION_CACHE_DIR;
    process.env.CONDA_COMPLETION_CACHE_DIR = "/from/process/env";
    try {
      const located = locateManifest({ env: {}, platform: "linux", home: "/h" });
      expect(located).toBe("/h/.cache/conda/completion/completion.msgpack");
    } finally {
      if (saved === undefined) delete process.env.CONDA_COMPLETION_CACHE_DIR;
      else process.env.CONDA_COMPLETION_CACHE_DIR = saved;
    }
  });
});

// The plugin normalises the override with os.path.expandvars + expanduser; ask a real Python.
const OVERRIDES: [platform: "linux" | "win32", value: string][] = [
  ["linux", "~/cc"],
  ["linux", "~"],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Python-style ${VAR} under test
  ["linux", "$ROOT/${SUB}/cc"],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Python-style ${VAR} under test
  ["linux", "/data/$NOPE/${NOPE}/cc"],
  ["linux", "/data/$ROOT$SUB/x"],
  ["linux", "/data/${ROOT"],
  ["win32", "%LOCALAPPDATA%\\cc"],
  ["win32", "~\\cc"],
  ["win32", "E:\\a%%b\\%NOPE%"],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Python-style ${VAR} under test
  ["win32", "E:\\$ROOT\\${SUB}\\$$x"],
  ["win32", "E:\\'$ROOT'\\x"],
  ["win32", "E:\\$ROOT-x\\%unclosed"],
];

const PYTHON_EXPAND = `
import json, ntpath, posixpath, sys
out = []
for platform, value in json.loads(sys.argv[1]):
    mod = ntpath if platform == "win32" else posixpath
    out.append(mod.join(mod.expanduser(mod.expandvars(value)), "completion.msgpack"))
print(json.dumps(out))
`;

describe("locateManifest against Python's expandvars/expanduser", () => {
  const python = Bun.which("python3");
  test.skipIf(python === null)(
    "expands CONDA_COMPLETION_CACHE_DIR as the plugin does",
    async () => {
      if (python === null) return;
      const env = {
        HOME: "/home/ada",
        USERPROFILE: "C:\\Users\\ada",
        ROOT: "/data",
        SUB: "ada",
        LOCALAPPDATA: "E:\\Local",
        PATH: process.env.PATH ?? "",
      };
      const stdout = await runPython(python, PYTHON_EXPAND, {
        args: [JSON.stringify(OVERRIDES)],
        env,
      });
      // The plugin then calls Path.resolve(), which normalises separators as path.resolve does.
      const expected = (JSON.parse(stdout) as string[]).map((value, i) =>
        OVERRIDES[i]?.[0] === "win32" ? win32.normalize(value) : posix.normalize(value),
      );
      const ours = OVERRIDES.map(([platform, value]) =>
        locateManifest({
          env: { ...env, CONDA_COMPLETION_CACHE_DIR: value },
          platform,
          home: platform === "win32" ? env.USERPROFILE : env.HOME,
          cwd: platform === "win32" ? "D:\\work" : "/work",
        }),
      );
      expect(ours).toEqual(expected);
    },
  );
  if (python === null) console.warn("skipped: no python3 on PATH to compare expansion with");
});
