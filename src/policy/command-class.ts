/** How much a conda call can do, from least to most powerful; each needs its own startup option. */
export type CommandClass = "read" | "write" | "destructive" | "exec";

/** Every class, least powerful first. */
export const COMMAND_CLASSES: readonly CommandClass[] = ["read", "write", "destructive", "exec"];

/** The more powerful of two classes, for calls that combine several effects. */
export function strictestClass(a: CommandClass, b: CommandClass): CommandClass {
  return COMMAND_CLASSES.indexOf(a) >= COMMAND_CLASSES.indexOf(b) ? a : b;
}
