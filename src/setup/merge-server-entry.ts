import { CondaMcpError } from "../errors.ts";
import { isJsonObject } from "../values.ts";
import { findJsoncSyntax } from "./find-jsonc-syntax.ts";
import type { ClientFile } from "./locate-client-file.ts";
import { type JsonSpan, scanJson } from "./scan-json.ts";

/** The merged file, or why the current one is left as it is (to follow the file's path). */
export type MergeResult =
  | { readonly ok: true; readonly text: string; readonly replaced: boolean }
  | { readonly ok: false; readonly problem: string };

/** How the text being edited is laid out: its line ending and one level of indentation. */
interface Layout {
  readonly eol: string;
  readonly unit: string;
}

/** The leading whitespace of the line `at` is on. */
function lineIndent(text: string, at: number): string {
  const lineStart = text.lastIndexOf("\n", at - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? "";
}

/** True when only whitespace comes before `at` on its line. */
function startsLine(text: string, at: number): boolean {
  return /^[ \t]*$/.test(text.slice(text.lastIndexOf("\n", at - 1) + 1, at));
}

/** `value` as JSON whose later lines start with `indent`; on one line when `indent` is null. */
function serialize(value: unknown, indent: string | null, layout: Layout): string {
  if (indent === null) return JSON.stringify(value);
  return JSON.stringify(value, null, layout.unit).split("\n").join(`${layout.eol}${indent}`);
}

/** `text` with the member `key: value` added at the end of the object at `object`. */
function addMember(
  text: string,
  object: JsonSpan,
  key: string,
  value: unknown,
  layout: Layout,
): string {
  const members = object.members ?? [];
  const first = members[0];
  const last = members.at(-1);
  if (first === undefined || last === undefined) {
    // An empty object: the member goes on its own line, one level in from the object's.
    const outer = lineIndent(text, object.start);
    const inner = outer + layout.unit;
    const member = `${JSON.stringify(key)}: ${serialize(value, inner, layout)}`;
    const body = `${layout.eol}${inner}${member}${layout.eol}${outer}`;
    return text.slice(0, object.start + 1) + body + text.slice(object.end - 1);
  }
  // Laid out like the first member: its own line and indentation, or the same line.
  const indent = startsLine(text, first.keyStart) ? lineIndent(text, first.keyStart) : null;
  const colon = text.slice(first.keyEnd, first.value.start);
  const gap = indent === null ? text.slice(object.start + 1, first.keyStart) : layout.eol + indent;
  const member = `,${gap}${JSON.stringify(key)}${colon}${serialize(value, indent, layout)}`;
  return text.slice(0, last.value.end) + member + text.slice(last.value.end);
}

/** The text with `name` set to `entry` in the servers object; its old value, if any, replaced. */
function spliceEntry(body: string, file: ClientFile, name: string, entry: unknown) {
  const layout: Layout = {
    eol: body.includes("\r\n") ? "\r\n" : "\n",
    unit: /^([ \t]+)\S/m.exec(body)?.[1] ?? "  ",
  };
  const root = scanJson(body);
  // JSON.parse keeps the last of repeated keys, so the last one is the one to change.
  const servers = root.members?.findLast((m) => m.key === file.serversKey);
  if (servers === undefined) {
    return {
      text: addMember(body, root, file.serversKey, { [name]: entry }, layout),
      replaced: false,
    };
  }
  const old = servers.value.members?.findLast((m) => m.key === name);
  if (old === undefined) {
    return { text: addMember(body, servers.value, name, entry, layout), replaced: false };
  }
  const indent = startsLine(body, old.keyStart) ? lineIndent(body, old.keyStart) : null;
  const value = serialize(entry, indent, layout);
  return {
    text: body.slice(0, old.value.start) + value + body.slice(old.value.end),
    replaced: true,
  };
}

/** Why `body` cannot be merged into, or null when it can. */
function refusal(parsed: unknown, file: ClientFile): string | null {
  if (!isJsonObject(parsed)) return "does not hold a JSON object";
  const servers = parsed[file.serversKey];
  if (servers !== undefined && !isJsonObject(servers)) {
    return `has a "${file.serversKey}" that is not an object`;
  }
  return null;
}

/**
 * The client's file with the server `name` set to `entry`, every other character kept as it
 * was (a new file when there is none, or only whitespace). A file that is not a JSON object
 * is refused, and so is one with comments or trailing commas, which rewriting would lose.
 */
export function mergeServerEntry(
  current: string | null,
  file: ClientFile,
  name: string,
  entry: unknown,
): MergeResult {
  const bom = current?.startsWith("\uFEFF") ? "\uFEFF" : "";
  const body = (current ?? "").slice(bom.length);
  if (body.trim() === "") {
    const fresh = { [file.serversKey]: { [name]: entry } };
    return { ok: true, text: `${bom}${JSON.stringify(fresh, null, 2)}\n`, replaced: false };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    const jsonc = findJsoncSyntax(body);
    if (jsonc === null) return { ok: false, problem: `is not valid JSON (${String(error)})` };
    const accepted = file.jsonc ? ", which the client accepts" : "";
    return { ok: false, problem: `has ${jsonc}${accepted}; rewriting it would lose them` };
  }
  const problem = refusal(parsed, file);
  if (problem !== null) return { ok: false, problem };
  const merged = spliceEntry(body, file, name, entry);
  const root = isJsonObject(parsed) ? parsed : {};
  const old = root[file.serversKey];
  const servers = { ...(isJsonObject(old) ? old : {}), [name]: entry };
  // The splice must mean exactly the old document with the one entry set, or nothing is written.
  // Bun.deepEquals, not node:util, which bun would build at every start.
  if (!Bun.deepEquals(JSON.parse(merged.text), { ...root, [file.serversKey]: servers }, true)) {
    throw new CondaMcpError("setup built a configuration file it cannot vouch for", "INTERNAL");
  }
  return { ok: true, text: bom + merged.text, replaced: merged.replaced };
}
