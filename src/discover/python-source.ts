/** How the interpreter was found, most direct first. */
export const PYTHON_SOURCES = [
  "conda-exe-is-python",
  "shebang",
  "env-shebang",
  "sh-trampoline",
  "windows-launcher",
  "conda-python-exe",
  "prefix",
  "shell-hook",
] as const;
export type PythonSource = (typeof PYTHON_SOURCES)[number];
