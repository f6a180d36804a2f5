/** A cmd.exe command line, or why the arguments cannot be passed through cmd.exe unchanged. */
export type CmdLine = { ok: true; line: string } | { ok: false; message: string };

// cmd.exe expands %VAR% even inside quotes, expands !VAR! when delayed expansion is on (conda.bat
// turns it on), doubles quoted carets when a batch file uses CALL (conda.bat does), and ends the
// command at a line break. No quoting survives these, so such arguments are refused.
const UNSAFE_IN_CMD = /[%!^\r\n\0]/;

/**
 * Builds the line that `cmd.exe /d /s /c "<line>"` runs to start a .bat/.cmd script with exactly
 * these arguments, or says which argument cannot be passed.
 */
export function buildCmdLine(script: string, argv: readonly string[]): CmdLine {
  if (UNSAFE_IN_CMD.test(script) || script.includes('"')) {
    return { ok: false, message: "the script path contains a character cmd.exe cannot quote" };
  }
  const parts = [`"${script}"`];
  for (const [index, arg] of argv.entries()) {
    if (UNSAFE_IN_CMD.test(arg)) {
      return {
        ok: false,
        message:
          `argument ${index + 1} contains %, !, ^, a line break or NUL, ` +
          "which cmd.exe cannot pass to a .bat/.cmd program unchanged",
      };
    }
    parts.push(quoteCmdArgument(arg));
  }
  return { ok: true, line: parts.join(" ") };
}

// Every argument is quoted so that no cmd metacharacter (& | < > ( ) space ...) is ever outside
// quotes. Backslashes are doubled before a quote and at the end (MSVCRT rules); an inner quote
// becomes "" which the UCRT reads as one literal quote inside a quoted argument and which keeps
// cmd's quote parity intact, even when a batch file re-parses the line through %*.
function quoteCmdArgument(arg: string): string {
  let quoted = '"';
  let backslashes = 0;
  for (const char of arg) {
    if (char === "\\") {
      backslashes += 1;
      continue;
    }
    if (char === '"') {
      quoted += `${"\\".repeat(backslashes * 2)}""`;
    } else {
      quoted += `${"\\".repeat(backslashes)}${char}`;
    }
    backslashes = 0;
  }
  return `${quoted}${"\\".repeat(backslashes * 2)}"`;
}
