/**
 * Makes zod interpret the MCP SDK's schemas instead of compiling each one, with `new Function`,
 * on its first parse: 1 to 3 ms for each kind of message, all of them on the way to the first
 * answers the SDK gives. Interpreted, a first parse takes a fraction of that and every later one
 * stays far under a millisecond for messages of MCP's size. zod reads its configuration from
 * this global (shared by every copy of zod) when a schema is built, so this runs before the SDK
 * loads; the program's entry calls it, a host embedding the library keeps its own setting.
 */
export function interpretZodSchemas(): void {
  const holder = globalThis as { __zod_globalConfig?: Record<string, unknown> };
  // In place: a zod already loaded keeps the object it found there.
  holder.__zod_globalConfig ??= {};
  holder.__zod_globalConfig.jitless = true;
}
