import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { initializeLine } from "../support/spawn-raw-server.ts";
import { serverCommand, withDeadline } from "../support/start-server.ts";

const ENTRY = join(import.meta.dir, "..", "..", "src", "stdio", "stdout-output.ts");
const TEST_TIMEOUT = 60_000;

/**
 * Runs a bun process that writes `count` numbered lines of `size` bytes through stdoutOutput,
 * `gapMs` apart from the tenth on, reports on stderr how many `done` calls came, and exits at
 * once; the shell pipes its stdout into `reader`. Checks that the writer ended cleanly with every
 * write done, and returns what `reader` printed.
 */
async function writeLines(options: { count: number; size: number; gapMs: number; reader: string }) {
  const script = `
    import { stdoutOutput } from ${JSON.stringify(ENTRY)};
    const output = stdoutOutput();
    let done = 0;
    for (let i = 0; i < ${options.count}; i++) {
      if (i >= 10) await Bun.sleep(${options.gapMs});
      output.write(String(i).padEnd(${options.size}, ".") + "\\n", () => done++);
    }
    while (done < ${options.count}) await Bun.sleep(5);
    console.error(JSON.stringify({ done }));
    // As the program does once its last answer's done has come: nothing may be lost then.
    process.exit(0);
  `;
  const child = Bun.spawn(
    ["bash", "-c", `set -o pipefail; "$0" -e "$1" | ${options.reader}`, process.execPath, script],
    { stdout: "pipe", stderr: "pipe" },
  );
  const [stdout, stderr, code] = await withDeadline(
    Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]),
    TEST_TIMEOUT / 2,
    "the writer's exit",
  );
  // Whatever the reader did, the writer ends cleanly and every write completed.
  expect(code).toBe(0);
  expect(JSON.parse(stderr)).toEqual({ done: options.count });
  return stdout;
}

describe("stdoutOutput", () => {
  test("keeps the lines' order, through a pipe that fills, and calls each done once", async () => {
    const stdout = await writeLines({
      count: 40,
      size: 100_000,
      gapMs: 0,
      reader: "(sleep 0.3; cat)",
    });
    const lines = stdout.split("\n").filter(Boolean);
    expect(lines.map((line) => Number.parseInt(line, 10))).toEqual([...Array(40).keys()]);
    expect(lines.every((line) => line.length === 100_000)).toBe(true);
  });

  test("once the reader has gone (EPIPE), every write still completes and nothing throws", async () => {
    const stdout = await writeLines({
      count: 30,
      size: 10_000,
      gapMs: 20,
      reader: "head -c 1 >/dev/null",
    });
    expect(stdout).toBe("");
  });
});

describe("a server whose client has stopped reading its stdout", () => {
  let fixture: FixtureConda;
  beforeAll(async () => {
    fixture = await makeFixtureConda({ withPlugins: false });
  }, TEST_TIMEOUT);
  afterAll(() => fixture.cleanup());

  // The answers meet a closed pipe; the server must still end, cleanly, when stdin closes.
  for (const start of ["cold", "warm"] as const) {
    test(
      `ends when stdin closes (${start} start)`,
      async () => {
        const { command, args } = serverCommand();
        const env = { ...fixture.env, XDG_CACHE_HOME: join(fixture.root, `cache-${start}`) };
        const serve = [command, ...args, "--conda", fixture.condaExe];
        const runs = start === "warm" ? 2 : 1;
        for (let run = 0; run < runs; run++) {
          const proc = Bun.spawn(["bash", "-c", 'set -o pipefail; "$@" | true', "bash", ...serve], {
            stdin: "pipe",
            stdout: "ignore",
            stderr: "pipe",
            env,
          });
          proc.stdin.write(initializeLine(0));
          proc.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
          proc.stdin.write('{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n');
          await proc.stdin.flush();
          await Bun.sleep(1500);
          proc.stdin.end();
          const code = await withDeadline(proc.exited, 20_000, "the server's exit").catch(
            (error: unknown) => {
              // The server is the shell's child: it goes first.
              Bun.spawnSync(["pkill", "-KILL", "-P", String(proc.pid)]);
              proc.kill("SIGKILL");
              throw error;
            },
          );
          expect(code).toBe(0);
        }
      },
      TEST_TIMEOUT,
    );
  }
});
