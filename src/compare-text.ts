/** Orders strings by UTF-16 code unit: stable and independent of the host's locale (no ICU). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
