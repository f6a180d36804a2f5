/** `--name=value` as its name and value (the value may hold `=`); any other argument as itself. */
export function splitOption(arg: string): [string, string | undefined] {
  const equals = arg.indexOf("=");
  return arg.startsWith("--") && equals !== -1
    ? [arg.slice(0, equals), arg.slice(equals + 1)]
    : [arg, undefined];
}
