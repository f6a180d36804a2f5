/** Reads one variable from a child's environment, ignoring case on Windows as Windows itself does. */
export function getEnvValue(
  env: Readonly<Record<string, string>>,
  name: string,
  platform: NodeJS.Platform,
): string | undefined {
  if (platform !== "win32") return env[name];
  const wanted = name.toUpperCase();
  for (const [key, value] of Object.entries(env)) {
    if (key.toUpperCase() === wanted) return value;
  }
  return undefined;
}
