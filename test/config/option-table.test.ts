import { expect, test } from "bun:test";
import { COMMANDS } from "../../src/config/commands.ts";
import { OPTION_TABLE } from "../../src/config/option-table.ts";
import { OPTION_HELP, parseConfig, usage } from "../../src/config.ts";

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

test.each(OPTION_TABLE.filter((o) => o.command !== undefined).map((o) => [o.flags[0], o.command]))(
  "%s goes only with the %s command",
  (flag, command) => {
    expect(() => parseConfig([flag], host)).toThrow(`${flag} goes with the ${command} command`);
    expect(() => parseConfig([command as string, flag], host)).not.toThrow();
  },
);
