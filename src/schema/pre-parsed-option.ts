import type { RawPreParser } from "../introspection-payload.ts";

/**
 * The option of conda's global pre-parser that argparse would read one argv token as, or null
 * when the token is left alone. It follows argparse's matching of an optional (the whole token,
 * `--opt=value`, a unique or ambiguous prefix when abbreviations are allowed, a short option
 * with its value or cluster attached); a test holds it against the target's own pre-parser.
 */
export function preParsedOption(token: string, preParser: RawPreParser): string | null {
  const { option_strings: options, prefix_chars: prefixes } = preParser;
  const first = token[0];
  // A `--` ends option parsing (the caller stops looking there); it is no option itself.
  if (first === undefined || !prefixes.includes(first) || token === "--") return null;
  if (options.includes(token)) return token;
  if (token.length === 1) return null;
  const head = token.includes("=") ? token.slice(0, token.indexOf("=")) : token;
  if (options.includes(head)) return head;
  if (prefixes.includes(token[1] ?? "")) {
    // `--verb` or `--verb=x`: any option it begins is a match (several: argparse's error).
    if (!preParser.allow_abbrev) return null;
    return options.find((o) => o.startsWith(head)) ?? null;
  }
  // `-vvv`, `-version`: the first two characters are a short option with more attached.
  // argparse 3.11 matches these whether or not abbreviations are allowed.
  const short = token.slice(0, 2);
  if (options.includes(short)) return short;
  return options.find((o) => o.startsWith(token)) ?? null;
}
