import { definedEnv } from "./defined-env.ts";

/**
 * The environment conda-mcp's own scripts run in under the target's Python: the call's own
 * (so conda sees the plugins and settings it sees when run), no bytecode written, UTF-8 output,
 * and never PYTHONINSPECT, which would turn the interpreter interactive after the script.
 */
export function pythonScriptEnv(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const scriptEnv = definedEnv({ ...env, PYTHONDONTWRITEBYTECODE: "1", PYTHONIOENCODING: "utf-8" });
  delete scriptEnv.PYTHONINSPECT;
  return scriptEnv;
}
