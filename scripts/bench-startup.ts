#!/usr/bin/env bun
// Start-up benchmark: spawn → initialize → tools/list answered, for the compiled binary (release
// flags and --no-bytecode) and `bun src/main.ts`, warm (startup snapshot), warm with the catalog
// cache only (snapshot removed before each run) and cold (--no-cache), each beside its floor
// measured in the same run: a compiled hello-world (console.log) for warm starts, the target
// Python's own parser build (introspect.py run directly) for cold starts, with the same script
// stopped once conda's parser is built beside it. Then the first conda result of a warm start, a start from
// the catalog cache only and a cold start (tools/call conda_info, sent as soon as tools/list is
// answered) beside running `conda info --json` directly.
// Usage: bun scripts/bench-startup.ts [--runs N] [--binary PATH] [--baseline PATH]
// --baseline adds the warm and cold starts of another release binary (an earlier version) to the
// same interleaving: on a machine whose speed moves, two versions compare best side by side.
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { buildCatalog } from "../src/catalog/build-catalog.ts";
import { discover } from "../src/discover/discover.ts";
import { INTROSPECT_SOURCE } from "../src/discover/start-introspection.ts";
import { pythonScriptEnv } from "../src/execute/launch.ts";
import { buildToolRegistry, toolDefinitions } from "../src/server/build-tool-registry.ts";
import { loadReferenceTree } from "../test/support/reference-tree.ts";
import {
  benchConda,
  benchDir,
  binaryUnderTest,
  helloWorld,
  machineLine,
  markdownTable,
  ms,
  ratio,
  readCapabilities,
  type Stats,
  sampleInterleaved,
  signedMs,
  summarize,
  timeFirstLine,
  timeRun,
  timeToFirstCall,
  timeToToolsList,
} from "./bench-support.ts";
import { compileBinary, REPO_ROOT } from "./build.ts";

const argv = process.argv.slice(2);
const runsAt = argv.indexOf("--runs");
const RUNS = runsAt >= 0 ? Number(argv[runsAt + 1]) : 15;
const WARMUP = 2;
const baselineAt = argv.indexOf("--baseline");
const BASELINE = baselineAt >= 0 ? argv[baselineAt + 1] : undefined;
if (baselineAt >= 0 && !BASELINE) throw new Error("--baseline needs the path of a release binary");
const MAIN = join(REPO_ROOT, "src", "main.ts");
const RELEASE = "compiled binary (release: --minify --bytecode)";
const BASELINE_NAME = `baseline binary ${BASELINE} (release)`;
const CATALOG_ONLY = "compiled binary (release), catalog cache only";
const COLD_CALL = "compiled binary (release), cold (--no-cache)";
// The same script ending once conda's parser is built: what the tree walk and the document
// add to the Python run, beside what conda itself spends.
const MAIN_BLOCK = '\nif __name__ == "__main__":\n    main()\n';
if (!INTROSPECT_SOURCE.includes(MAIN_BLOCK)) throw new Error("introspect.py has no main block");
const PARSER_BUILD_SOURCE = INTROSPECT_SOURCE.replace(
  MAIN_BLOCK,
  '\nif __name__ == "__main__":\n    build_parser()\n',
);

const target = await benchConda(argv);
const scratch = await benchDir();
try {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  log(`building binaries in ${scratch.dir} ...`);
  const release = await binaryUnderTest(argv, scratch.dir);
  const noBytecode = join(scratch.dir, "conda-mcp-no-bytecode");
  await compileBinary(null, false, noBytecode);
  const hello = await helloWorld(scratch.dir);
  // process.stdout loads Node's stream modules (about 7 ms of a 10 ms run on 2 cores), which
  // the server never does before it answers: shown beside the floor, not used as one.
  const helloStreams = await helloWorld(
    scratch.dir,
    "hello-process-stdout",
    'process.stdout.write("hello\\n");',
  );
  const probe = join(scratch.dir, "startup-phases");
  await compileBinary(
    null,
    true,
    probe,
    process.execPath,
    join(import.meta.dir, "bench-startup-phases.ts"),
  );

  // A private cache folder: warm runs read the entry the first start writes.
  const env = { ...target.env, XDG_CACHE_HOME: join(scratch.dir, "cache") };
  const conda = ["--conda", target.condaExe];
  const servers: Record<string, string[]> = {
    [RELEASE]: [release, ...conda],
    "compiled binary (--no-bytecode)": [noBytecode, ...conda],
    "bun src/main.ts": [process.execPath, MAIN, ...conda],
    ...(BASELINE ? { [BASELINE_NAME]: [BASELINE, ...conda] } : {}),
  };
  // The baseline's catalog cache entry is of its own introspection script: it keeps it in a
  // cache folder of its own, or each version would take the other's entry for a stale one.
  const envOf = (name: string) =>
    name === BASELINE_NAME ? { ...env, XDG_CACHE_HOME: join(scratch.dir, "baseline-cache") } : env;
  // Each server's first start writes its own snapshot (a snapshot belongs to the executable
  // that recorded it), which its next starts answer the handshake from.
  const cacheDirOf = (name: string) => join(envOf(name).XDG_CACHE_HOME, "conda-mcp");
  const cacheDir = cacheDirOf(RELEASE);
  const snapshots = async (dir: string) =>
    (await readdir(dir).catch(() => [])).filter((name) => name.endsWith(".snapshot.json"));
  const snapshotOf = new Map<string, string>();
  for (const [name, command] of Object.entries(servers)) {
    const before = new Set(await snapshots(cacheDirOf(name)));
    await timeToToolsList(command, envOf(name));
    const written = (await snapshots(cacheDirOf(name))).filter((file) => !before.has(file));
    if (written.length !== 1) throw new Error(`${name} wrote ${written.length} startup snapshots`);
    snapshotOf.set(name, written[0] as string);
    // The next start's handshake must come from that snapshot, or "warm: snapshot" would
    // time a start from the catalog cache.
    const capabilities = await readCapabilities(command, envOf(name));
    if (capabilities.catalog_source !== "cache" || capabilities.handshake_source !== "snapshot") {
      throw new Error(
        `${name} did not start from its snapshot (catalog_source ${capabilities.catalog_source}, ` +
          `handshake_source ${capabilities.handshake_source})`,
      );
    }
  }
  // Only the release binary's: the other servers keep starting from theirs.
  const dropReleaseSnapshot = () => rm(join(cacheDir, snapshotOf.get(RELEASE) as string));
  const releaseCommand = servers[RELEASE] as string[];

  log(`warm starts: ${WARMUP} warm-up + ${RUNS} runs each, interleaved ...`);
  const helloCompiled = "compiled hello-world";
  const helloCompiledStreams = "compiled hello-world with process.stdout.write (not a floor)";
  const helloBun = "bun hello.ts";
  const warm = await sampleInterleaved(
    {
      [helloCompiled]: () => timeFirstLine([hello.binary], env),
      [helloCompiledStreams]: () => timeFirstLine([helloStreams.binary], env),
      [helloBun]: () => timeFirstLine([process.execPath, hello.source], env),
      ...Object.fromEntries(
        Object.entries(servers).map(([name, command]) => [
          name,
          async () => (await timeToToolsList(command, envOf(name))).ms,
        ]),
      ),
      // The run writes the release binary's snapshot again for its next warm start.
      [CATALOG_ONLY]: async () => {
        await dropReleaseSnapshot();
        return (await timeToToolsList(releaseCommand, env)).ms;
      },
    },
    { warmup: WARMUP, runs: RUNS },
  );

  // conda's own spread (tens of ms) is far wider than the difference measured: twice the runs.
  const CALL_RUNS = RUNS * 2;
  log(`first conda result: ${WARMUP} warm-up + ${CALL_RUNS} runs each, interleaved ...`);
  const directInfo = "conda info --json, run directly";
  // Sampled: the call's own round trip (sent → answered); beside it, from the spawn and the
  // server's share (the round trip minus conda's run as the server timed it).
  const fromSpawn = new Map<string, number[]>();
  const share = new Map<string, number[]>();
  const firstCallOf = async (name: string, command: readonly string[] = releaseCommand) => {
    const figures = await timeToFirstCall(command, env);
    fromSpawn.set(name, [...(fromSpawn.get(name) ?? []), figures.fromSpawn]);
    share.set(name, [...(share.get(name) ?? []), figures.share]);
    return figures.call;
  };
  const firstCall = await sampleInterleaved(
    {
      [directInfo]: async () => {
        const run = await timeRun([target.condaExe, "info", "--json"], env);
        if (run.exitCode !== 0) throw new Error(`conda info failed (exit ${run.exitCode})`);
        return run.ms;
      },
      [RELEASE]: () => firstCallOf(RELEASE),
      [CATALOG_ONLY]: async () => {
        await dropReleaseSnapshot();
        return firstCallOf(CATALOG_ONLY);
      },
      [COLD_CALL]: () => firstCallOf(COLD_CALL, [...releaseCommand, "--no-cache"]),
    },
    { warmup: WARMUP, runs: CALL_RUNS },
  );

  log(`cold starts: ${WARMUP} warm-up + ${RUNS} runs each, interleaved ...`);
  const pythonFloor = "target Python's parser build (introspect.py)";
  const parserOnly = "conda's parser build alone (introspect.py's build_parser, no tree walk)";
  // The baseline's own introspect.py runs inside it; the floor beside it is this version's.
  const introspectEnv = pythonScriptEnv(env);
  const cold = await sampleInterleaved(
    {
      [pythonFloor]: async () => {
        const run = await timeRun([target.python, "-B", "-"], introspectEnv, INTROSPECT_SOURCE);
        // The document follows the site folders' line.
        if (run.exitCode !== 0 || !run.stdout.includes('\n{"ok": true')) {
          throw new Error(`introspect.py failed (exit ${run.exitCode})`);
        }
        return run.ms;
      },
      [parserOnly]: async () => {
        const run = await timeRun([target.python, "-B", "-"], introspectEnv, PARSER_BUILD_SOURCE);
        if (run.exitCode !== 0) throw new Error(`build_parser failed (exit ${run.exitCode})`);
        return run.ms;
      },
      ...Object.fromEntries(
        Object.entries(servers).map(([name, command]) => [
          name,
          async () => (await timeToToolsList([...command, "--no-cache"], envOf(name))).ms,
        ]),
      ),
    },
    { warmup: WARMUP, runs: RUNS },
  );

  log("time spent in the target's Python, as discover() reports it ...");
  const pythonMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const discovery = await discover({
      explicitPath: target.condaExe,
      env,
      platform: process.platform,
      timeoutMs: 60_000,
      cacheDir: null,
    });
    pythonMs.push(discovery.pythonMs);
  }
  const inPython = summarize(pythonMs);

  log("warm start phases (compiled probe, with and without serve()) ...");
  const phaseSamples: Record<string, number[]> = {};
  for (let i = 0; i < WARMUP + RUNS; i++) {
    for (const mode of [[], ["--serve"]]) {
      const run = await timeRun([probe, ...mode, "--program", release, ...conda], env);
      if (run.exitCode !== 0) throw new Error(`startup-phases probe failed (exit ${run.exitCode})`);
      if (i < WARMUP) continue;
      const phases = JSON.parse(run.stdout) as Record<string, number>;
      for (const [phase, value] of Object.entries(phases)) {
        phaseSamples[phase] = [...(phaseSamples[phase] ?? []), value];
      }
    }
  }

  const sizes = await toolsListSizes(servers["bun src/main.ts"] as string[], env);

  const row = (name: string, mode: string, s: Stats, floorName: string, floor: Stats) => [
    name,
    mode,
    ms(s.p50),
    ms(s.p99),
    floorName,
    ms(floor.p50),
    ratio(s.p50, floor.p50),
    signedMs(s.p50 - floor.p50),
  ];
  const startupRows = [
    ...Object.keys(servers).map((name) => {
      const floorName = name.startsWith("bun ") ? helloBun : helloCompiled;
      return row(name, "warm: snapshot", warm[name] as Stats, floorName, warm[floorName] as Stats);
    }),
    row(
      CATALOG_ONLY,
      "warm: catalog cache",
      warm[CATALOG_ONLY] as Stats,
      helloCompiled,
      warm[helloCompiled] as Stats,
    ),
    ...Object.keys(servers).map((name) =>
      row(name, "cold", cold[name] as Stats, pythonFloor, cold[pythonFloor] as Stats),
    ),
  ];
  const floorRows = [
    [helloCompiled, warm[helloCompiled] as Stats],
    [helloCompiledStreams, warm[helloCompiledStreams] as Stats],
    [helloBun, warm[helloBun] as Stats],
    [pythonFloor, cold[pythonFloor] as Stats],
    [parserOnly, cold[parserOnly] as Stats],
    ["of a cold start: in the target's Python (Discovery.pythonMs)", inPython],
  ].map(([name, s]) => [name as string, ms((s as Stats).p50), ms((s as Stats).p99)]);
  const phaseRows = Object.entries(phaseSamples).map(([phase, samples]) => {
    const s = summarize(samples);
    return [phase, ms(s.p50), ms(s.p99)];
  });

  // The warm-up rounds are not among the samples.
  const measured = (values: number[] | undefined) => summarize((values ?? []).slice(WARMUP));
  const startOf: Record<string, string> = {
    [RELEASE]: "warm: snapshot",
    [CATALOG_ONLY]: "warm: catalog cache",
  };
  const firstCallRows = [RELEASE, CATALOG_ONLY, COLD_CALL].map((name) => [
    ...row(
      name,
      startOf[name] ?? "cold",
      firstCall[name] as Stats,
      directInfo,
      firstCall[directInfo] as Stats,
    ),
    ms(measured(fromSpawn.get(name)).p50),
    ms(measured(share.get(name)).p50),
  ]);
  const releaseWarm = warm[RELEASE] as Stats;
  const helloStats = warm[helloCompiled] as Stats;
  const overHello = releaseWarm.p50 - helloStats.p50;
  const coldRatio = (cold[RELEASE] as Stats).p50 / (cold[pythonFloor] as Stats).p50;
  const callOver = (firstCall[RELEASE] as Stats).p50 - (firstCall[directInfo] as Stats).p50;
  // conda's own run-to-run spread (tens to hundreds of ms) swamps the round trips' difference:
  // the server's share (the round trip minus conda's run as the server timed it) decides.
  const callShare = measured(share.get(RELEASE)).p50;
  console.log(`Measured ${machineLine()}; ${target.label} (${sizes.served.tools} tools).`);
  console.log(
    `Command: \`bun scripts/bench-startup.ts --runs ${RUNS}\` (part of \`npm run bench\`)\n`,
  );
  console.log(
    "Spawn → `initialize` → `tools/list` answered (ms; ratio and difference against the floor's p50):\n",
  );
  console.log(
    markdownTable(
      ["program", "catalog", "p50", "p99", "floor", "floor p50", "ratio", "over floor"],
      startupRows,
    ),
  );
  if (BASELINE) {
    for (const [start, stats] of [
      ["Warm", warm],
      ["Cold", cold],
    ] as const) {
      const [now, before] = [stats[RELEASE] as Stats, stats[BASELINE_NAME] as Stats];
      console.log(
        `\n${start} start of the release binary against the baseline, interleaved: p50 ${ms(now.p50)} ` +
          `against ${ms(before.p50)} ms (${signedMs(now.p50 - before.p50)}).`,
      );
    }
  }
  console.log(
    "\nThe first `tools/call` (`conda_info`), sent as soon as `tools/list` is answered: sent → answered (ms):\n",
  );
  console.log(
    markdownTable(
      [
        "program",
        "start",
        "p50",
        "p99",
        "floor",
        "floor p50",
        "ratio",
        "over floor",
        "spawn → answered p50",
        "server's share p50",
      ],
      firstCallRows,
    ),
  );
  console.log("\nFloors (ms):\n");
  console.log(markdownTable(["floor", "p50", "p99"], floorRows));
  console.log(
    "\nWhere a warm start of the release binary goes (ms, in-process marks of a compiled probe):\n",
  );
  console.log(markdownTable(["phase", "p50", "p99"], phaseRows));
  console.log("\n`tools/list` size:\n");
  console.log(
    markdownTable(
      ["parser tree", "tools", "`tools/list` response", "tools array (JSON)"],
      [
        [
          target.label,
          String(sizes.served.tools),
          `${sizes.served.responseBytes} B`,
          `${sizes.served.toolsBytes} B`,
        ],
        sizes.reference
          ? [
              "conda 26.7 (recorded reference tree)",
              String(sizes.reference.tools),
              "(not served)",
              `${sizes.reference.toolsBytes} B`,
            ]
          : ["conda 26.7 (recorded reference tree)", "not found", "", ""],
      ],
    ),
  );
  const verdict = (met: boolean) => (met ? "met" : "NOT met");
  console.log(
    `\nGoals (release binary): warm start ≤ compiled hello-world + 8 ms: ${verdict(overHello <= 8)} ` +
      `(${signedMs(overHello)} ms); cold start ≤ ×1.10 of the parser build: ${verdict(coldRatio <= 1.1)} ` +
      `(×${coldRatio.toFixed(3)}); first tools/call after a warm start ≤ +15 ms over conda run ` +
      `directly, by the server's share: ${verdict(callShare <= 15)} (${ms(callShare)} ms; ` +
      `the round trips' p50 differ by ${signedMs(callOver)} ms).`,
  );
} finally {
  await scratch.cleanup();
  await target.cleanup();
}

/** The served tools/list of the measured conda, and the tools the recorded 26.7 tree would get. */
async function toolsListSizes(command: string[], env: Record<string, string>) {
  const served = await timeToToolsList(command, env);
  const servedSizes = {
    tools: served.tools.length,
    responseBytes: served.responseBytes,
    toolsBytes: Buffer.byteLength(JSON.stringify(served.tools)),
  };
  let reference: { tools: number; toolsBytes: number } | null = null;
  try {
    const tree = await loadReferenceTree();
    const { entries } = buildToolRegistry(buildCatalog(tree.tree, { preParser: tree.pre_parser }), {
      allowExec: false,
      readOnlyTools: false,
      tools: null,
      cliCommandTool: null,
      schemaDetail: "compact",
    });
    const tools = toolDefinitions(entries);
    reference = { tools: tools.length, toolsBytes: Buffer.byteLength(JSON.stringify(tools)) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  return { served: servedSizes, reference };
}
