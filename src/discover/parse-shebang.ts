/** What the first lines of a script say about the interpreter that runs it. */
export type Shebang =
  /** `#!/opt/conda/bin/python [arg]`. */
  | { kind: "direct"; interpreter: string; argument: string | null }
  /** `#!/usr/bin/env [-S] [VAR=value] python`: the program is looked up on PATH. */
  | { kind: "env"; program: string }
  /** `#!/bin/sh` then `'''exec' "<python>" "$0" "$@" #'''` (long or spaced prefixes). */
  | { kind: "sh-trampoline"; interpreter: string }
  /** A shell script with no recognised trampoline (e.g. a hand-written wrapper). */
  | { kind: "shell"; interpreter: string };

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh"]);
const TRAMPOLINE = /^'''exec' (?:"([^"]+)"|'([^']+)'|(\S+)) "\$0" "\$@"/;

/** Parse the head of a script (its first few KiB as text); null when it has no `#!` line. */
export function parseShebang(head: string): Shebang | null {
  if (!head.startsWith("#!")) return null;
  const lines = head.split("\n").map((line) => line.replace(/\r$/, ""));
  const first = (lines[0] ?? "").slice(2).trim();
  if (!first) return null;
  const [interpreter = "", ...rest] = first.split(/\s+/);
  const name = interpreter.split("/").pop() ?? "";

  if (name === "env") {
    // env's own flags (-S, -i, -u NAME) and VAR=value assignments come before the program.
    const words = rest.length === 1 ? (rest[0] ?? "").split(/\s+/) : rest;
    for (let i = 0; i < words.length; i++) {
      const word = words[i] ?? "";
      if (word === "-u" || word === "--unset") {
        i++;
        continue;
      }
      if (word.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) continue;
      if (word) return { kind: "env", program: word };
    }
    return null;
  }

  if (SHELLS.has(name)) {
    for (const line of lines.slice(1, 6)) {
      const match = TRAMPOLINE.exec(line);
      if (match) {
        const python = match[1] ?? match[2] ?? match[3];
        if (python) return { kind: "sh-trampoline", interpreter: python };
      }
    }
    return { kind: "shell", interpreter };
  }

  return { kind: "direct", interpreter, argument: rest.length > 0 ? rest.join(" ") : null };
}
