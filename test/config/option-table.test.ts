import { expect, test } from "bun:test";
import { COMMANDS, OPTION_TABLE } from "../../src/config/option-table.ts";
import { OPTION_HELP, parseConfig, usage } from "../../src/config/parse-config.ts";

const host = { env: {}, platform: "linux" as const, home: "/home/u", cwd: "/work" };

test("each flag spelling belongs to exactly one row, and each row has a help line", () => {
  const spellings = [...OPTION_TABLE.flatMap((o) => o.flags), ...COMMANDS.map((c) => c.name)];
  expect(new Set(spellings).size).toBe(spellings.length);
  for (const option of OPTION_TABLE) expect(option.help.length).toBeGreaterThan(10);
});

test("--help shows every row: options under Options, command-only ones beside their command", () => {
  const text = usage("1.2.3");
  for (const [option, help] of OPTION_HELP) {
    expect(text).toMatch(new RegExp(`^  ${RegExp.escape(option)} +${RegExp.escape(help)}$`, "m"));
  }
  expect(OPTION_HELP.map(([o]) => o.split(" ")[0])).toEqual(
    OPTION_TABLE.filter((o) => o.command === undefined).map((o) => o.flags[0]),
  );
  expect(text).toContain("conda-mcp catalog [--json]");
});

test.each(OPTION_TABLE.filter((o) => o.metavar !== undefined).map((o) => [o.flags[0]]))(
  "%s without its value is refused, naming the option",
  (flag) => {
    expect(() => parseConfig([flag], host)).toThrow(`${flag} needs a value`);
  },
);

/** A value each command-only option with a value accepts. */
const SAMPLE_VALUES: Record<string, string> = { "--scope": "project" };

test.each(OPTION_TABLE.filter((o) => o.command !== undefined).map((o) => [o.flags[0], o.command]))(
  "%s goes only with the %s command",
  (flag, mode) => {
    const option = OPTION_TABLE.find((o) => o.flags[0] === flag);
    const given = option?.metavar === undefined ? [flag] : [flag, SAMPLE_VALUES[flag] ?? ""];
    expect(() => parseConfig(given, host)).toThrow(`${flag} goes with the ${mode} command`);
    const command = COMMANDS.find((c) => c.mode === mode);
    // The command word, then its operand when it takes one (the last choice: a project scope).
    const words = [command?.name ?? "", ...(command?.operand?.choices.slice(-1) ?? [])];
    expect(() => parseConfig([...words, ...given], host)).not.toThrow();
  },
);

test("--help names each command with its operand and its own options", () => {
  const text = usage("1.2.3");
  expect(text).toContain("conda-mcp setup CLIENT [--scope user|project] [--print]");
  for (const client of ["claude-desktop", "claude-code", "vscode", "cursor", "gemini"]) {
    expect(text).toContain(client);
  }
});
