import { splitOption } from "../src/config/parse-config.ts";

/** One command-line argument of a script, and the reader of its value. */
export interface ScriptOption {
  /** The argument as given, for an error naming it. */
  arg: string;
  /** `--name` of `--name=value`, else the argument itself. */
  name: string;
  /** The `=value` part, if any. */
  inline: string | undefined;
  /** The value: the `=value` part or the next argument (then consumed); throws with `usage`. */
  value: () => string;
}

/** The arguments of a build or benchmark script, one option at a time. */
export function* scriptOptions(argv: readonly string[], usage: string): Generator<ScriptOption> {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [name, inline] = splitOption(arg);
    const value = (): string => {
      const next = inline ?? argv[++i];
      if (next === undefined) throw new Error(`${name} needs a value; ${usage}`);
      return next;
    };
    yield { arg, name, inline, value };
  }
}
