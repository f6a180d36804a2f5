import { mkdir, readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import type { Config } from "../config/config-types.ts";
import { writeFileAtomic } from "../discover/write-cache-file.ts";
import { CondaMcpError } from "../errors.ts";
import { writeAll } from "../stdio/stdout-output.ts";
import { errorCode } from "../values.ts";
import { chooseServerCommand, type LaunchFacts } from "./choose-server-command.ts";
import { locateClientFile } from "./locate-client-file.ts";
import { mergeServerEntry } from "./merge-server-entry.ts";
import { SETUP_CLIENTS } from "./setup-clients.ts";
import { writeBackup } from "./write-backup.ts";

/** The name of the server entry setup adds or replaces; every other entry is left alone. */
const SERVER_NAME = "conda";

/** A configuration file as it is now: the file itself (a link's target), its bytes, its text. */
interface CurrentFile {
  readonly target: string;
  readonly bytes: Uint8Array;
  readonly text: string;
  readonly mode: number;
}

function failed(message: string, error?: unknown): CondaMcpError {
  const code = error === undefined ? "" : ` (${errorCode(error) ?? String(error)})`;
  return new CondaMcpError(`${message}${code}`, "SETUP_FAILED");
}

/** The file at `file` (following a symbolic link to the file it names), or null when there is none. */
async function readCurrent(file: string): Promise<CurrentFile | null> {
  let target: string;
  try {
    target = await realpath(file);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return null;
    throw failed(`could not read ${file}`, error);
  }
  try {
    const bytes = await readFile(target);
    const { mode } = await stat(target);
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    return { target, bytes, text, mode: mode & 0o7777 };
  } catch (error) {
    if (error instanceof TypeError)
      throw failed(`${file} is not UTF-8 text; setup left it untouched`);
    throw failed(`could not read ${file}`, error);
  }
}

/** Backs up the old file (if any), then puts `text` in its place; returns the backup's path. */
async function replaceFile(file: string, current: CurrentFile | null, text: string) {
  const target = current?.target ?? file;
  try {
    // A client that rewrote its file since it was read (Claude Code often does) keeps its change.
    if (current && !Buffer.from(await readFile(target)).equals(Buffer.from(current.bytes))) {
      throw failed(`${target} changed while setup ran; nothing was written, run setup again`);
    }
    const backup = current && (await writeBackup(target, current.bytes, current.mode, new Date()));
    await mkdir(path.dirname(target), { recursive: true });
    await writeFileAtomic(target, text, current?.mode ?? null);
    return { target, backup };
  } catch (error) {
    if (error instanceof CondaMcpError) throw error;
    throw failed(`could not write ${target}`, error);
  }
}

/** A project's file must stay in the project: a cloned link to a user file is refused. */
async function checkInsideProject(config: Config, file: string, current: CurrentFile | null) {
  if (config.setupScope !== "project" || current === null) return;
  const project = await realpath(config.cwd);
  const relative = path.relative(project, current.target);
  if (relative.startsWith("..") || path.isAbsolute(relative)) {
    throw failed(
      `${file} links to ${current.target}, outside the project; setup left it untouched`,
    );
  }
}

function entrySnippet(entry: unknown): string {
  return `"${SERVER_NAME}": ${JSON.stringify(entry, null, 2)}`;
}

/** What was done, for the person who ran setup. */
function report(
  label: string,
  done: { target: string; backup: string | null },
  replaced: boolean,
  entry: unknown,
): string {
  const what = replaced
    ? `Replaced the "${SERVER_NAME}" server in`
    : `Added the "${SERVER_NAME}" server to`;
  const saved = done.backup ? `; the old file is saved as ${done.backup}` : " (a new file)";
  return `${what} ${done.target}${saved}:\n${entrySnippet(entry)}\nRestart ${label} (or reload its MCP servers) to start it.\n`;
}

/**
 * `setup CLIENT`: adds (or replaces) the `conda` entry in the client's MCP configuration,
 * keeping every other byte of the file; backs the old file up beside it, then writes
 * atomically. With `--print` it prints the resulting file and writes nothing.
 */
export async function runSetup(
  config: Config,
  launch: LaunchFacts,
  out: { stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream },
): Promise<void> {
  const client = SETUP_CLIENTS.find((c) => c.name === config.setupClient);
  if (client === undefined) throw new CondaMcpError("setup ran without a client", "INTERNAL");
  const file = locateClientFile(client.name, config.setupScope, config);
  const { command, args } = chooseServerCommand(config, launch);
  const entry = file.stdioType ? { type: "stdio", command, args } : { command, args };
  const current = await readCurrent(file.path);
  await checkInsideProject(config, file.path, current);
  const merged = mergeServerEntry(current?.text ?? null, file, SERVER_NAME, entry);
  if (!merged.ok) {
    throw failed(
      `${file.path} ${merged.problem}, so setup left it untouched. Add the server to its "${file.serversKey}" object yourself:\n${entrySnippet(entry)}`,
    );
  }
  if (config.print) {
    await writeAll(out.stdout, merged.text);
    await writeAll(
      out.stderr,
      `conda-mcp: printed ${file.path} as setup would write it; nothing was written\n`,
    );
    return;
  }
  if (current !== null && current.text === merged.text) {
    await writeAll(
      out.stdout,
      `${file.path} already has this "${SERVER_NAME}" server; nothing was written\n`,
    );
    return;
  }
  const done = await replaceFile(file.path, current, merged.text);
  await writeAll(out.stdout, report(client.label, done, merged.replaced, entry));
}
