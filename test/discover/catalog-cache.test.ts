import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmod,
  chown,
  cp,
  mkdir,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  symlink,
  truncate,
  utimes,
  writeFile,
} from "node:fs/promises";
import { join } from "node:path";
import { type Entry, MAX_CATALOG_CACHE_BYTES } from "../../src/discover/catalog-cache.ts";
import { type DiscoverOptions, type Discovery, discover } from "../../src/discover/discover.ts";
import { entryText } from "../../src/discover/write-cache-file.ts";
import { countPythonRuns, writeCountingInterpreter } from "../support/count-python-runs.ts";
import {
  type FixtureConda,
  type FixtureCondaOptions,
  makeFixtureConda,
} from "../support/make-fixture-conda.ts";

const TIMEOUT = 30_000;
const TEST_TIMEOUT = 90_000;
const PLUGINS_DIR = join(import.meta.dir, "..", "fixtures", "conda", "plugins");
const ENTRY = /^[0-9a-f]{64}\.json$/;

/**
 * A fixture conda whose scripts name a counting interpreter: `<root>/counted-python` appends a
 * line to `<root>/python-runs.log`, then execs the fixture's Python. Every way discovery can
 * reach Python goes through it (introspection runs the resolved interpreter, the last-resort
 * `conda shell.posix hook` runs the script, whose shebang is the wrapper), so the log's length
 * is exactly the number of Python processes started: the proof that a warm start spawns none.
 * The wrapper is an ordinary file the fingerprint covers like any interpreter.
 */
interface Counted {
  fixture: FixtureConda;
  cacheDir: string;
  wrapper: string;
  logs: string[];
  env: Record<string, string>;
  runs(): Promise<number>;
  /** Discovers, then (unless `store` is false) writes a fresh entry. */
  discover(overrides?: Partial<DiscoverOptions>, store?: boolean): Promise<Discovery>;
  entries(): Promise<string[]>;
  cleanup(): Promise<void>;
}

async function countedConda(options: FixtureCondaOptions = {}): Promise<Counted> {
  const fixture = await makeFixtureConda(options);
  const { wrapper, runs } = await countPythonRuns(
    fixture,
    (options.shebang ?? "direct") === "direct",
  );
  const cacheDir = join(fixture.root, "cache", "conda-mcp");
  const logs: string[] = [];
  const env = { ...fixture.env, CONDA_EXE: fixture.condaExe };
  return {
    fixture,
    cacheDir,
    wrapper,
    logs,
    env,
    runs,
    discover: async (overrides = {}, store = true) => {
      const discovery = await discover({
        env,
        platform: process.platform,
        timeoutMs: TIMEOUT,
        cacheDir,
        home: fixture.home,
        log: (line) => logs.push(line),
        ...overrides,
      });
      if (store) await discovery.cache?.store();
      return discovery;
    },
    entries: async () => (await readdir(cacheDir).catch(() => [] as string[])).sort(),
    cleanup: () => fixture.cleanup(),
  };
}

function cacheOf(discovery: Discovery): NonNullable<Discovery["cache"]> {
  if (discovery.cache === null) throw new Error("the discovery has no cache entry");
  return discovery.cache;
}

/** Run a test body with a private counted fixture conda, removed afterwards. */
function withConda(
  options: FixtureCondaOptions,
  body: (conda: Counted) => Promise<void>,
): () => Promise<void> {
  return async () => {
    const conda = await countedConda(options);
    try {
      await body(conda);
    } finally {
      await conda.cleanup();
    }
  };
}

/** A discovery's data, without the installation's functions, with `changes` applied. */
function plain(discovery: Discovery, changes: { pythonMs?: number; source?: string } = {}) {
  const {
    currentFingerprint: _f,
    currentPluginNames: _p,
    ...installation
  } = discovery.installation;
  const { pythonMs = discovery.pythonMs, source = installation.source } = changes;
  // A function compares by identity: what store() resolves with is checked on its own.
  const cache = discovery.cache && { ...discovery.cache, store: null };
  return { ...discovery, cache, pythonMs, installation: { ...installation, source } };
}

const commands = (discovery: Discovery) => discovery.tree.subcommands.map((sub) => sub.command);

/** An entry's text as one object: its facts line, with its parser line put into introspection. */
function entryOf(text: string): Record<string, unknown> {
  const [facts = "", parser = ""] = text.split("\n");
  const entry = JSON.parse(facts) as Record<string, unknown> & { introspection: object };
  Object.assign(entry.introspection, JSON.parse(parser));
  return entry;
}

describe("warm starts", () => {
  test(
    "a cold start introspects and writes one private entry; the next start uses it without Python",
    withConda({}, async (conda) => {
      const cold = await conda.discover();
      expect(cold.installation.source).toBe("introspection");
      expect(cold.installation.python).toBe(conda.wrapper);
      expect(cold.pythonMs).toBeGreaterThan(0);
      expect(await conda.runs()).toBe(1);

      const entries = await conda.entries();
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatch(ENTRY);
      expect((await stat(conda.cacheDir)).mode & 0o777).toBe(0o700);
      expect((await stat(join(conda.cacheDir, entries[0] ?? ""))).mode & 0o777).toBe(0o600);

      const warm = await conda.discover();
      expect(plain(warm)).toEqual(plain(cold, { pythonMs: 0, source: "cache" }));
      expect(await conda.runs()).toBe(1);
      expect(await conda.entries()).toEqual(entries);
      expect(conda.logs).toEqual([]);
    }),
    TEST_TIMEOUT,
  );

  test(
    "the entry holds digests of the environment, never its values",
    withConda({}, async (conda) => {
      const secret = "s3cr3t-value-never-stored";
      const env = { ...conda.env, CONDA_MCP_TEST_TOKEN: secret, PYTHONWARNINGS: secret };
      await conda.discover({ env });
      const [entry] = await conda.entries();
      const text = await readFile(join(conda.cacheDir, entry ?? ""), "utf8");
      expect(text.includes(secret)).toBe(false);

      // Variables that do not change conda leave the entry valid; those that may do not.
      expect((await conda.discover({ env: { ...env, UNRELATED: "1" } })).installation.source).toBe(
        "cache",
      );
      const changed = { ...env, CONDA_MCP_TEST_TOKEN: "other" };
      expect((await conda.discover({ env: changed })).installation.source).toBe("introspection");
      expect(await conda.entries()).toHaveLength(2);
    }),
    TEST_TIMEOUT,
  );
});

describe("a changed conda is never served a stale catalog", () => {
  test(
    "installing a plugin distribution invalidates the entry, and so does removing it",
    withConda({ withPlugins: false }, async (conda) => {
      expect(commands(await conda.discover())).not.toContain("tools");
      expect((await conda.discover()).installation.source).toBe("cache");

      await cp(join(PLUGINS_DIR, "tools"), conda.fixture.sitePackages, { recursive: true });
      const added = await conda.discover();
      expect(added.installation.source).toBe("introspection");
      expect(commands(added)).toContain("tools");
      expect(added.installation.plugins.map((p) => p.project_name)).toContain("fixture-tools");
      expect((await conda.discover()).installation.source).toBe("cache");

      await rm(join(conda.fixture.sitePackages, "fixture_tools-2.1.0.dist-info"), {
        recursive: true,
      });
      await rm(join(conda.fixture.sitePackages, "fixture_tools"), { recursive: true });
      const removed = await conda.discover();
      expect(removed.installation.source).toBe("introspection");
      expect(commands(removed)).not.toContain("tools");
      expect(await conda.runs()).toBe(3);
      expect(await conda.entries()).toHaveLength(1);
    }),
    TEST_TIMEOUT,
  );

  test(
    "updating conda (a new conda-*.dist-info version) invalidates the entry",
    withConda({}, async (conda) => {
      const before = await conda.discover();
      const site = conda.fixture.sitePackages;
      await rename(join(site, "conda-26.7.0.dist-info"), join(site, "conda-26.9.0.dist-info"));
      const after = await conda.discover();
      expect(after.installation.source).toBe("introspection");
      expect(after.installation.fingerprint).not.toBe(before.installation.fingerprint);
      expect((await conda.discover()).installation.source).toBe("cache");
      expect(await conda.runs()).toBe(2);
    }),
    TEST_TIMEOUT,
  );

  test(
    "a rewritten conda script or interpreter invalidates the entry",
    withConda({}, async (conda) => {
      await conda.discover();
      const script = conda.fixture.condaExe;
      await writeFile(script, `${await readFile(script, "utf8")}# updated\n`);
      expect((await conda.discover()).installation.source).toBe("introspection");
      expect((await conda.discover()).installation.source).toBe("cache");

      await writeFile(conda.wrapper, `${await readFile(conda.wrapper, "utf8")}# updated\n`);
      expect((await conda.discover()).installation.source).toBe("introspection");
      expect((await conda.discover()).installation.source).toBe("cache");
      expect(await conda.runs()).toBe(3);
    }),
    TEST_TIMEOUT,
  );

  test(
    "another executable of the same installation gets its own entry",
    withConda({}, async (conda) => {
      const condabin = join(conda.fixture.prefix, "condabin", "conda");
      expect((await conda.discover()).installation.source).toBe("introspection");
      const other = await conda.discover({ explicitPath: condabin });
      expect(other.installation.source).toBe("introspection");
      expect(other.installation.executable).toBe(condabin);
      expect(other.installation.condaArgv).toEqual([condabin]);
      expect(await conda.entries()).toHaveLength(2);

      expect((await conda.discover()).installation.executable).toBe(conda.fixture.condaExe);
      const again = await conda.discover({ explicitPath: condabin });
      expect(again.installation).toMatchObject({
        source: "cache",
        executable: condabin,
        condaArgv: [condabin],
      });
      expect(await conda.runs()).toBe(2);
    }),
    TEST_TIMEOUT,
  );

  test(
    "CONDA_NO_PLUGINS gets its own entry, and the plugin-free catalog stays plugin-free",
    withConda({}, async (conda) => {
      expect(commands(await conda.discover())).toContain("greet");
      const env = { ...conda.env, CONDA_NO_PLUGINS: "true" };
      const bare = await conda.discover({ env });
      expect(bare.installation.source).toBe("introspection");
      expect(commands(bare)).not.toContain("greet");

      const bareAgain = await conda.discover({ env });
      expect(bareAgain.installation.source).toBe("cache");
      expect(commands(bareAgain)).not.toContain("greet");
      const full = await conda.discover();
      expect(full.installation.source).toBe("cache");
      expect(commands(full)).toContain("greet");
    }),
    TEST_TIMEOUT,
  );

  test(
    "a new or edited .condarc invalidates the entry (it can disable plugins)",
    withConda({}, async (conda) => {
      expect(commands(await conda.discover())).toContain("greet");
      await writeFile(join(conda.fixture.prefix, ".condarc"), "no_plugins: true\n");
      const disabled = await conda.discover();
      expect(disabled.installation.source).toBe("introspection");
      expect(commands(disabled)).not.toContain("greet");
      expect((await conda.discover()).installation.source).toBe("cache");

      const condarc = join(conda.fixture.root, "condarc.yml");
      await writeFile(condarc, "no_plugins: false\n");
      const env = { ...conda.env, CONDARC: condarc };
      expect(commands(await conda.discover({ env }))).toContain("greet");
      expect((await conda.discover({ env })).installation.source).toBe("cache");
      await writeFile(condarc, "no_plugins: true\n");
      const edited = await conda.discover({ env });
      expect(edited.installation.source).toBe("introspection");
      expect(commands(edited)).not.toContain("greet");
    }),
    TEST_TIMEOUT,
  );

  test(
    "a stamp the startup snapshot just proved is not checked again; any other stamp is",
    withConda({}, async (conda) => {
      const cold = await conda.discover();
      const { key, stamp } = cacheOf(cold);
      const found = { executable: cold.installation.executable, catalogKey: key };
      // A .condarc written after the proof: only a stamp that was not just proven sees it.
      await writeFile(join(conda.fixture.prefix, ".condarc"), "no_plugins: true\n");
      const proven = { stamp, entryDigest: null };
      const trusted = await conda.discover({ found: { ...found, proven } });
      expect(trusted.installation.source).toBe("cache");
      const other = { ...proven, stamp: { ...stamp, configDigest: "0".repeat(64) } };
      const checked = await conda.discover({ found: { ...found, proven: other } });
      expect(checked.installation.source).toBe("introspection");
      expect(commands(checked)).not.toContain("greet");
    }),
    TEST_TIMEOUT,
  );

  test(
    "only the very text a snapshot's digest names skips the entry's schema (not its kind); changed text is checked",
    withConda({}, async (conda) => {
      const cold = await conda.discover();
      const { key, stamp, store } = cacheOf(cold);
      const file = join(conda.cacheDir, `${key}.json`);
      const text = await readFile(file, "utf8");
      // What the write reported and what a read reports are the digest of the text on disk.
      const digest = new Bun.CryptoHasher("sha256").update(text).digest("hex");
      expect(await store()).toBe(digest);
      expect(await (await conda.discover()).cache?.store()).toBe(digest);
      const found = { executable: cold.installation.executable, catalogKey: key };
      const proven = { stamp, entryDigest: digest };
      // A field the schema refuses, as corruption would leave it: the digest no longer matches.
      const corrupt = text.replace('"pythonSource":"', '"pythonSource":"x');
      expect(corrupt).not.toBe(text);
      await writeFile(file, corrupt);
      const checked = await conda.discover({ found: { ...found, proven } });
      expect(checked.installation.source).toBe("introspection");
      expect(conda.logs).toContain("catalog cache: entry ignored, its interpreter is malformed");
      // The rewritten entry, named by its own digest, is trusted as it stands.
      const rewritten = await readFile(file, "utf8");
      const again = new Bun.CryptoHasher("sha256").update(rewritten).digest("hex");
      const hit = await conda.discover({
        found: { ...found, proven: { stamp, entryDigest: again } },
      });
      expect(hit.installation.source).toBe("cache");
      expect(hit.cache?.proven).toBe(true);
      expect(hit.tree).toEqual(checked.tree);
      // A hit on any other text is not the snapshot's entry.
      expect((await conda.discover({ found })).cache?.proven).toBe(false);
      // The named text skips the schema (a field it would refuse passes), but not the entry's
      // kind: another introspection script's entry is refused even when named.
      const named = async (text: string) => {
        await writeFile(file, text);
        const entryDigest = new Bun.CryptoHasher("sha256").update(text).digest("hex");
        return conda.discover({ found: { ...found, proven: { stamp, entryDigest } } });
      };
      const unchecked = await named(rewritten.replace('"pythonSource":"', '"pythonSource":"x'));
      expect(unchecked.installation.source).toBe("cache");
      // Of the named text only the facts line is parsed at start; conda's parser, nearly all of
      // its bytes, when the tree is first read.
      const facts = rewritten.slice(0, rewritten.indexOf("\n"));
      const lazy = await named(`${facts}\n{"actions": [\n`);
      expect(lazy.installation.source).toBe("cache");
      expect(lazy.installation.condaVersion).toBe(hit.installation.condaVersion);
      expect(() => lazy.tree).toThrow(SyntaxError);
      // Named text that is not two lines is checked as any other: one line is another format.
      expect((await named(`${facts}\n`)).installation.source).toBe("introspection");
      expect(conda.logs).toContain("catalog cache: entry ignored, it has another format version");
      const foreign = rewritten.replace(/"introspectDigest":"[0-9a-f]+"/, '"introspectDigest":"0"');
      expect(foreign).not.toBe(rewritten);
      expect((await named(foreign)).installation.source).toBe("introspection");
      expect(conda.logs).toContain(
        "catalog cache: entry ignored, it was made by another introspection script",
      );
      expect(await conda.runs()).toBe(4);
    }),
    TEST_TIMEOUT,
  );

  test(
    "with an env shebang PATH picks the interpreter, so PATH is part of the entry's key",
    withConda({ shebang: "env" }, async (conda) => {
      const log = join(conda.fixture.root, "python-runs.log");
      const dirs = [join(conda.fixture.root, "a"), join(conda.fixture.root, "b")];
      for (const dir of dirs) {
        await mkdir(dir);
        await writeCountingInterpreter(join(dir, "python"), log, conda.fixture.python);
      }
      const withPath = (dir: string) => ({ env: { ...conda.env, PATH: `${dir}:/usr/bin:/bin` } });
      const first = await conda.discover(withPath(dirs[0] ?? ""));
      expect(first.installation.source).toBe("introspection");
      expect(first.pythonSource).toBe("env-shebang");
      expect(first.installation.python).toBe(join(dirs[0] ?? "", "python"));
      expect((await conda.discover(withPath(dirs[0] ?? ""))).installation.source).toBe("cache");

      const second = await conda.discover(withPath(dirs[1] ?? ""));
      expect(second.installation.source).toBe("introspection");
      expect(second.installation.python).toBe(join(dirs[1] ?? "", "python"));
      expect(await conda.runs()).toBe(2);
    }),
    TEST_TIMEOUT,
  );

  test(
    "with a direct shebang PATH does not matter",
    withConda({}, async (conda) => {
      await conda.discover();
      const moved = await conda.discover({ env: { ...conda.env, PATH: "/usr/bin:/bin" } });
      expect(moved.installation.source).toBe("cache");
    }),
    TEST_TIMEOUT,
  );
});

describe("unusable entries are misses, never failures, and get rewritten", () => {
  let conda: Counted;
  let entryFile: string;
  let valid: string;

  beforeAll(async () => {
    conda = await countedConda();
    await conda.discover();
    const [entry] = await conda.entries();
    entryFile = join(conda.cacheDir, entry ?? "");
    valid = await readFile(entryFile, "utf8");
  }, TEST_TIMEOUT);
  afterAll(() => conda?.cleanup());

  const edited = (edit: (entry: Record<string, unknown>) => void) => () => {
    const entry = entryOf(valid);
    edit(entry);
    return writeFile(entryFile, entryText(entry as Entry), { mode: 0o600 });
  };
  const text = (content: string | Uint8Array) => () =>
    writeFile(entryFile, content, { mode: 0o600 });

  const cases: [string, string, () => Promise<void>][] = [
    [
      "a truncated entry",
      "not valid JSON",
      () => writeFile(entryFile, valid.slice(0, valid.length / 2)),
    ],
    ["an empty file", "not valid JSON", text("")],
    ["garbage bytes", "not UTF-8 text", text(new Uint8Array([0xff, 0xfe, 0x00, 0x80, 0x7b, 0x22]))],
    ["JSON that is not an object", "not an object", text("[1, 2, 3]")],
    [
      "an entry on one line, as the format before wrote it (whatever its format field says)",
      "another format version",
      () => writeFile(entryFile, JSON.stringify(entryOf(valid)), { mode: 0o600 }),
    ],
    [
      "a parser line that is not JSON",
      "not valid JSON",
      () => {
        const facts = valid.slice(0, valid.indexOf("\n"));
        return writeFile(entryFile, `${facts}\n{"actions": [\n`, { mode: 0o600 });
      },
    ],
    [
      "another format version",
      "another format version",
      edited((entry) => Object.assign(entry, { format: 999 })),
    ],
    [
      "an entry of another introspection script",
      "another introspection script",
      edited((entry) => Object.assign(entry, { introspectDigest: "0".repeat(64) })),
    ],
    [
      "an entry filed under another key",
      "another conda or environment",
      edited((entry) => Object.assign(entry, { key: "1".repeat(64) })),
    ],
    [
      "a stale fingerprint",
      "conda, its plugins or its interpreter changed",
      edited((entry) => Object.assign(entry, { fingerprint: "2".repeat(64) })),
    ],
    [
      "a command line that is not the executable's",
      "command line does not match the executable",
      edited((entry) => Object.assign(entry, { condaArgv: ["/bin/sh", "-c", "true"] })),
    ],
    [
      "an unknown interpreter source",
      "interpreter is malformed",
      edited((entry) => Object.assign(entry, { pythonSource: "somewhere" })),
    ],
    [
      "a malformed tree deep inside",
      "introspection is malformed",
      edited((entry) => {
        const tree = (entry.introspection as { tree: { subcommands: { actions: unknown }[] } })
          .tree;
        const first = tree.subcommands[0];
        if (first) first.actions = [{ dest: 7 }];
      }),
    ],
    [
      "site dirs that do not match the introspection",
      "do not match its introspection",
      edited((entry) => {
        (entry.input as { siteDirs: string[] }).siteDirs = [];
      }),
    ],
    [
      "an oversized (sparse) file",
      "too large",
      async () => {
        await writeFile(entryFile, valid, { mode: 0o600 });
        await truncate(entryFile, MAX_CATALOG_CACHE_BYTES + 1);
      },
    ],
    [
      "a link to a valid entry",
      "it is a link",
      async () => {
        const elsewhere = join(conda.fixture.root, "linked-entry.json");
        await writeFile(elsewhere, valid, { mode: 0o600 });
        await rm(entryFile, { force: true });
        await symlink(elsewhere, entryFile);
      },
    ],
    [
      "a valid entry others may write",
      "not a private file of this user",
      async () => {
        await writeFile(entryFile, valid);
        await chmod(entryFile, 0o666);
      },
    ],
    [
      "a FIFO",
      "not a regular file",
      async () => {
        await rm(entryFile, { force: true });
        const proc = Bun.spawn(["mkfifo", entryFile]);
        expect(await proc.exited).toBe(0);
      },
    ],
  ];

  test.each(cases)(
    "%s: %s",
    async (_name, reason, corrupt) => {
      await corrupt();
      const runsBefore = await conda.runs();
      conda.logs.length = 0;
      const discovery = await conda.discover();
      expect(discovery.installation.source).toBe("introspection");
      expect(await conda.runs()).toBe(runsBefore + 1);
      expect(conda.logs).toHaveLength(1);
      expect(conda.logs[0]).toStartWith("catalog cache: entry ignored, ");
      expect(conda.logs[0]).toContain(reason);
      expect(conda.logs[0]).not.toContain(conda.fixture.root);

      // Rewritten: a regular private file again, and the next start is a hit.
      const info = await stat(entryFile);
      expect(info.isFile()).toBe(true);
      expect(info.mode & 0o777).toBe(0o600);
      expect(info.size).toBeLessThan(MAX_CATALOG_CACHE_BYTES);
      expect((await conda.discover()).installation.source).toBe("cache");
      expect(await conda.entries()).toEqual([entryFile.split("/").pop() ?? ""]);
    },
    TEST_TIMEOUT,
  );

  test.skipIf(process.getuid?.() !== 0)(
    "an entry owned by another user (runs as root only: needs chown)",
    async () => {
      await writeFile(entryFile, valid, { mode: 0o600 });
      await chown(entryFile, 65534, 65534);
      conda.logs.length = 0;
      expect((await conda.discover()).installation.source).toBe("introspection");
      expect(conda.logs[0]).toContain("not a private file of this user");
      expect((await stat(entryFile)).uid).toBe(0);
      expect((await conda.discover()).installation.source).toBe("cache");
    },
    TEST_TIMEOUT,
  );
});

describe("writing the cache", () => {
  test(
    "a fresh entry is written at the first store(), which the start calls off its way to answering",
    withConda({}, async (conda) => {
      const cold = await conda.discover({}, false);
      expect(cold.installation.source).toBe("introspection");
      expect(await conda.entries()).toEqual([]);
      const { key, store } = cacheOf(cold);
      const digest = await store();
      expect(await conda.entries()).toEqual([`${key}.json`]);
      const text = await readFile(join(conda.cacheDir, `${key}.json`), "utf8");
      expect(digest).toBe(new Bun.CryptoHasher("sha256").update(text).digest("hex"));
      // Later calls share the first write.
      expect(store()).toBe(store());
      expect(await store()).toBe(digest);
    }),
    TEST_TIMEOUT,
  );

  test(
    "cacheDir null never reads or writes the cache",
    withConda({}, async (conda) => {
      const uncached = await conda.discover({ cacheDir: null });
      expect(uncached.installation.source).toBe("introspection");
      expect(await conda.entries()).toEqual([]);
      expect(await readdir(conda.fixture.home)).toEqual([]);

      await conda.discover();
      const [entry] = await conda.entries();
      const file = join(conda.cacheDir, entry ?? "");
      const before = await stat(file);
      const again = await conda.discover({ cacheDir: null });
      expect(again.installation.source).toBe("introspection");
      expect(await conda.runs()).toBe(3);
      expect(await conda.entries()).toEqual([entry ?? ""]);
      expect((await stat(file)).mtimeMs).toBe(before.mtimeMs);
    }),
    TEST_TIMEOUT,
  );

  test(
    "two concurrent cold starts both succeed and leave one valid entry and no temporary file",
    withConda({}, async (conda) => {
      const [a, b] = await Promise.all([conda.discover(), conda.discover()]);
      expect(a.installation.source).toBe("introspection");
      expect(b.installation.source).toBe("introspection");
      expect(a.installation.fingerprint).toBe(b.installation.fingerprint);
      expect(commands(a)).toEqual(commands(b));
      const entries = await conda.entries();
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatch(ENTRY);
      // Whichever rename came last won; the entry is one of the two, whole.
      const warm = await conda.discover();
      expect(warm.installation.source).toBe("cache");
      const cached = { pythonMs: 0, source: "cache" };
      expect([plain(a, cached), plain(b, cached)]).toContainEqual(plain(warm));
      expect(await conda.runs()).toBe(2);
      expect(conda.logs).toEqual([]);
    }),
    TEST_TIMEOUT,
  );

  test(
    "writing removes temporary files older than an hour and entries unused for 30 days",
    withConda({}, async (conda) => {
      await mkdir(conda.cacheDir, { recursive: true });
      const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3600 * 1000);
      const files = {
        staleTemp: `${"a".repeat(64)}.123.abcdef.tmp`,
        freshTemp: `${"b".repeat(64)}.456.abcdef.tmp`,
        oldEntry: `${"c".repeat(64)}.json`,
        recentEntry: `${"d".repeat(64)}.json`,
        foreign: "notes.txt",
      };
      for (const name of Object.values(files)) {
        await writeFile(join(conda.cacheDir, name), "{}");
      }
      const age = { staleTemp: 2, freshTemp: 0.5, oldEntry: 31 * 24, recentEntry: 29 * 24 };
      for (const [key, hours] of Object.entries(age)) {
        const when = hoursAgo(hours);
        await utimes(join(conda.cacheDir, files[key as keyof typeof age]), when, when);
      }
      await conda.discover();
      const left = await conda.entries();
      expect(left).not.toContain(files.staleTemp);
      expect(left).not.toContain(files.oldEntry);
      expect(left).toContain(files.freshTemp);
      expect(left).toContain(files.recentEntry);
      expect(left).toContain(files.foreign);
      expect(left.filter((name) => ENTRY.test(name))).toHaveLength(2);
    }),
    TEST_TIMEOUT,
  );

  test(
    "a hit marks its entry as used, so pruning counts from the last start",
    withConda({}, async (conda) => {
      await conda.discover();
      const [entry] = await conda.entries();
      const file = join(conda.cacheDir, entry ?? "");
      const monthAgo = new Date(Date.now() - 31 * 24 * 3600 * 1000);
      await utimes(file, monthAgo, monthAgo);
      expect((await conda.discover()).installation.source).toBe("cache");
      expect((await stat(file)).mtimeMs).toBeGreaterThan(monthAgo.getTime() + 24 * 3600 * 1000);

      // A cold start for another environment prunes around it and leaves it in place.
      await conda.discover({ env: { ...conda.env, CONDA_NO_PLUGINS: "true" } });
      expect(await conda.entries()).toContain(entry ?? "");
    }),
    TEST_TIMEOUT,
  );

  test(
    "a cache folder that cannot be created is logged and discovery goes on",
    withConda({}, async (conda) => {
      const blocker = join(conda.fixture.root, "not-a-folder");
      await writeFile(blocker, "");
      const discovery = await conda.discover({ cacheDir: join(blocker, "conda-mcp") });
      expect(discovery.installation.source).toBe("introspection");
      expect(conda.logs).toEqual(["catalog cache: not written (ENOTDIR)"]);
    }),
    TEST_TIMEOUT,
  );

  test(
    "an entry that cannot be replaced is logged and discovery goes on",
    withConda({}, async (conda) => {
      await conda.discover();
      const [entry] = await conda.entries();
      const file = join(conda.cacheDir, entry ?? "");
      await rm(file);
      await mkdir(join(file, "blocked"), { recursive: true });
      const discovery = await conda.discover();
      expect(discovery.installation.source).toBe("introspection");
      expect(conda.logs).toHaveLength(2);
      expect(conda.logs[0]).toBe("catalog cache: entry ignored, it is not a regular file");
      expect(conda.logs[1]).toStartWith("catalog cache: not written (");
      expect((await conda.entries()).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    }),
    TEST_TIMEOUT,
  );
});
