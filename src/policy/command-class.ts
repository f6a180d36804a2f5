/** How much a conda call can do, from least to most powerful; each needs its own startup option. */
export type CommandClass = "read" | "write" | "destructive" | "exec";

/** Every class, least powerful first. */
export const COMMAND_CLASSES: readonly CommandClass[] = ["read", "write", "destructive", "exec"];
