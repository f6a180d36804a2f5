// Records the small introspection document a cold start rehearses on while conda's Python runs
// (src/warm-start/rehearse-start.ts): a real conda's document cut down to a few commands that
// between them have most kinds of argument, with the installation's paths made neutral, as the
// lines introspect.py prints (after the site folders' line).
//
//   bun scripts/record-rehearsal-document.ts --conda PATH [--out FILE]
//
// Record it again when the introspection document's format changes (its test then fails).

import { homedir } from "node:os";
import { join } from "node:path";
import { introspect } from "../src/discover/introspect.ts";
import { resolvePython } from "../src/discover/resolve-python.ts";
import { spawnIntrospection } from "../src/discover/start-introspection.ts";
import type { IndexedParser, IntrospectionDocument } from "../src/introspection-payload.ts";
import { scriptOptions } from "./script-options.ts";

const USAGE = "usage: bun scripts/record-rehearsal-document.ts --conda PATH [--out FILE]";
// Options of most kinds with choices and exclusive groups (config), a greedy remainder (run),
// and a command four parsers deep with positionals (env config vars set).
const COMMANDS = [["config"], ["run"], ["env", "config", "vars", "set"]];
const ROOT_PREFIX = "/opt/conda";
const HOME = "/home/user";
const TIMEOUT_MS = 120_000;

let conda: string | null = null;
let out = new URL("../src/warm-start/rehearsal-document.jsonl", import.meta.url).pathname;
for (const option of scriptOptions(process.argv.slice(2), USAGE)) {
  if (option.name === "--conda") conda = option.value();
  else if (option.name === "--out") out = option.value();
  else throw new Error(`unknown argument ${option.arg}; ${USAGE}`);
}
if (conda === null) throw new Error(USAGE);

const host = { env: process.env, platform: process.platform, timeoutMs: TIMEOUT_MS };
const { python } = await resolvePython(conda, host);
const document = await introspect(spawnIntrospection(python, host), host);
await Bun.write(out, neutralText(cutDown(document), document));
console.log(`wrote ${out} from conda ${document.conda_version}`);

/**
 * The lines of the document with only the parsers on the way to COMMANDS: the facts, each
 * top-level command with the actions first seen in it (renumbered in that order), the plugins'
 * facts before the first command a plugin registers, the root.
 */
function cutDown(full: IntrospectionDocument): object[] {
  const { actions, tree, external_plugins, completion, ...facts } = full;
  const onTheWay = (parser: IndexedParser) =>
    COMMANDS.some((path) => parser.path.every((word, i) => path[i] === word));
  const kept: number[] = [];
  const renumber = new Map<number, number>();
  const keep = (parser: IndexedParser): IndexedParser => ({
    ...parser,
    actions: parser.actions.map((index) => {
      if (!renumber.has(index)) renumber.set(index, kept.push(index) - 1);
      return renumber.get(index) as number;
    }),
    subcommands: parser.subcommands.filter(onTheWay).map(keep),
  });
  // The actions a line adds to the table: those kept since the previous line.
  let sent = 0;
  const added = () => {
    const since = sent;
    sent = kept.length;
    return kept.slice(since).map((index) => actions[index]);
  };
  const lines: object[] = [facts];
  let plugins: object | null = { external_plugins, completion };
  for (const command of tree.subcommands.filter(onTheWay)) {
    if (plugins && command.plugin) {
      lines.push(plugins);
      plugins = null;
    }
    const cut = keep(command);
    lines.push({ actions: added(), command: cut });
  }
  if (plugins) lines.push(plugins);
  const root = keep({ ...tree, subcommands: [] });
  lines.push({ actions: added(), tree: root });
  return lines;
}

/** The lines' text with this machine's installation paths replaced by neutral ones. */
function neutralText(lines: object[], full: IntrospectionDocument): string {
  const [major, minor] = full.python_version.split(".");
  const [facts, ...rest] = lines;
  const neutral = [
    {
      ...facts,
      python_executable: join(ROOT_PREFIX, "bin", "python"),
      site_dirs: [join(ROOT_PREFIX, "lib", `python${major}.${minor}`, "site-packages")],
    },
    ...rest,
  ];
  // The longer path first: one may hold another. Defaults such as `run --cwd` name the folder
  // the recording ran in.
  const paths: [string, string][] = [
    [full.root_prefix, ROOT_PREFIX],
    [process.env.HOME ?? homedir(), HOME],
    [process.cwd(), HOME],
  ];
  paths.sort(([a], [b]) => b.length - a.length);
  const text = neutral.map((line) => `${JSON.stringify(line)}\n`).join("");
  return paths.reduce((replaced, [path, to]) => replaced.replaceAll(path, to), text);
}
