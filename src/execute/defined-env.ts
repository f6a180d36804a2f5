/** An environment with its unset (`undefined`) variables left out, as a child process takes it. */
export function definedEnv(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const defined: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined) defined[key] = value;
  }
  return defined;
}
