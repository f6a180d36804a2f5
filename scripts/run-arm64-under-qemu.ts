#!/usr/bin/env bun
// The cross-built linux-arm64 binary, run: `bun scripts/run-arm64-under-qemu.ts [--binary PATH]
// [--no-bytecode]` compiles it (unless --binary names one) and runs it under qemu-user against
// the fixture conda: `--version`, `catalog`, and one MCP session through an SDK client. conda
// itself stays native: qemu-user passes the binary's execve to the kernel, so the x86-64 Python
// it starts runs as usual. Needs Debian's qemu-user and libc6-arm64-cross (its sysroot).
import { existsSync } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { makeFixtureConda } from "../test/support/make-fixture-conda.ts";
import { type ProgramRun, runProgram } from "../test/support/run-program.ts";
import { connectStdio } from "../test/support/start-server.ts";
import { binaryName, compileBinary, REPO_ROOT } from "./build.ts";
import { scriptOptions } from "./script-options.ts";

/** The arm64 glibc sysroot Debian's libc6-arm64-cross installs; qemu's `-L` loads from it. */
export const ARM64_SYSROOT = "/usr/aarch64-linux-gnu";

/** ELF e_machine of AArch64. */
const EM_AARCH64 = 183;

/** Why the arm64 binary cannot run here (naming the package to install), or null when it can. */
export function qemuUnavailable(): string | null {
  if (process.platform !== "linux") return "qemu-user runs Linux binaries on a Linux host only";
  if (!Bun.which("qemu-aarch64")) {
    return "qemu-aarch64 is not on PATH (Debian: apt-get install qemu-user)";
  }
  if (!existsSync(join(ARM64_SYSROOT, "lib", "ld-linux-aarch64.so.1"))) {
    return `${ARM64_SYSROOT} has no arm64 glibc (Debian: apt-get install libc6-arm64-cross)`;
  }
  return null;
}

/** Options of {@link runArm64UnderQemu}. */
export interface QemuRunOptions {
  /** An already built linux-arm64 binary; null compiles one into a temporary folder. */
  binary: string | null;
  /** Compile with the release build's bytecode flags (the default, as released). */
  bytecode: boolean;
}

/** Parses the script's own arguments; unknown ones throw naming the usage. */
export function parseQemuArgs(argv: readonly string[]): QemuRunOptions {
  const options: QemuRunOptions = { binary: null, bytecode: true };
  const usage = "usage: bun scripts/run-arm64-under-qemu.ts [--binary PATH] [--no-bytecode]";
  for (const { arg, name, inline, value } of scriptOptions(argv, usage)) {
    if (name === "--binary") {
      options.binary = resolve(value());
    } else if (name === "--no-bytecode" && inline === undefined) {
      options.bytecode = false;
    } else {
      throw new Error(`unknown argument ${JSON.stringify(arg)}; ${usage}`);
    }
  }
  return options;
}

/**
 * Builds (or takes) the linux-arm64 binary and checks it under qemu-aarch64: `--version`,
 * `catalog` and an MCP session (list tools, call conda_info) against a fresh fixture conda.
 * Logs one line per step with its time; throws with the output of the step that failed.
 */
export async function runArm64UnderQemu(
  options: QemuRunOptions,
  log: (line: string) => void = () => {},
): Promise<void> {
  const unavailable = qemuUnavailable();
  if (unavailable) throw new Error(`cannot run the arm64 binary here: ${unavailable}`);
  const qemu = Bun.which("qemu-aarch64") as string;
  const work = await mkdtemp(join(tmpdir(), "conda-mcp-qemu-"));
  const fixture = await makeFixtureConda();
  const step = async <T>(what: string, body: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const value = await body();
    log(`ok  ${what}  ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return value;
  };
  try {
    const binary =
      options.binary ??
      (await step(`build ${binaryName("bun-linux-arm64")}`, async () => {
        const out = join(work, binaryName("bun-linux-arm64"));
        await compileBinary("bun-linux-arm64", options.bytecode, out);
        return out;
      }));
    const machine = await elfMachine(binary);
    if (machine !== EM_AARCH64) {
      throw new Error(`${binary} is not an AArch64 ELF binary (e_machine ${machine})`);
    }
    const underQemu = ["-L", ARM64_SYSROOT, binary];
    const version = (await Bun.file(join(REPO_ROOT, "package.json")).json()).version;

    await step("--version", async () => {
      const run = await runQemu([qemu, ...underQemu, "--version"], fixture.env);
      expectOutput(run, "--version", (out) => out === `conda-mcp ${version}\n`);
    });
    await step("catalog (fixture conda)", async () => {
      const argv = [qemu, ...underQemu, "catalog", "--conda", fixture.condaExe, "--no-cache"];
      const run = await runQemu(argv, fixture.env);
      expectOutput(
        run,
        "catalog",
        (out) => out.includes("conda 26.7.0 at ") && out.includes("conda_info"),
      );
    });
    await step("MCP session: list tools, call conda_info", () =>
      mcpSession(qemu, [...underQemu, "--conda", fixture.condaExe, "--no-cache"], fixture.env),
    );
  } finally {
    await fixture.cleanup();
    await rm(work, { recursive: true, force: true });
  }
}

/** An SDK client over stdio to the binary under qemu: conda_info must be listed and answer. */
async function mcpSession(qemu: string, args: string[], env: Record<string, string>) {
  const server = await connectStdio({ command: qemu, args, env }, "binary under qemu");
  try {
    const names = (await server.client.listTools()).tools.map((t) => t.name);
    if (!names.includes("conda_info")) throw new Error(`no conda_info in ${names.join(", ")}`);
    const result = (await server.client.callTool(
      { name: "conda_info", arguments: { json: true } },
      undefined,
      { timeout: 120_000 },
    )) as CallToolResult;
    const out = result.structuredContent as { exit_code?: number; parsed_json?: unknown };
    const conda = (out?.parsed_json as { conda_version?: string } | undefined)?.conda_version;
    if (result.isError || out?.exit_code !== 0 || conda !== "26.7.0") {
      throw new Error(`conda_info failed: ${JSON.stringify(result)}`);
    }
  } catch (error) {
    throw new Error(
      `${error instanceof Error ? error.message : error}\nstderr:\n${server.stderr()}`,
    );
  } finally {
    await server.close();
  }
}

async function elfMachine(path: string): Promise<number> {
  const file = await open(path, "r");
  try {
    const header = Buffer.alloc(20);
    await file.read(header, 0, 20, 0);
    if (header.toString("latin1", 0, 4) !== "\x7fELF") return -1;
    return header.readUInt16LE(18);
  } finally {
    await file.close();
  }
}

/** Runs argv under the server's own process runner; a run past 180 s is killed and throws. */
async function runQemu(argv: string[], env: Record<string, string>): Promise<ProgramRun> {
  const run = await runProgram(argv, { env, timeoutMs: 180_000 });
  if (run.timedOut) throw new Error(`${argv.join(" ")} did not finish within 180000 ms`);
  return run;
}

function expectOutput(run: ProgramRun, what: string, ok: (stdout: string) => boolean): void {
  if (run.exitCode !== 0 || !ok(run.stdout)) {
    throw new Error(`${what} (exit ${run.exitCode}):\n${run.stdout}${run.stderr}`);
  }
}

if (import.meta.main) {
  try {
    const options = parseQemuArgs(process.argv.slice(2));
    await runArm64UnderQemu(options, (line) => console.log(line));
    console.log("the linux-arm64 binary runs under qemu-aarch64");
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
