/** Executable file formats that mean "native program", not a script. */
export type BinaryFormat = "elf" | "mach-o" | "pe";

const MACH_O_MAGICS = new Set([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe]);

/** Recognise a native executable from its first bytes (ELF, Mach-O incl. fat, PE); else null. */
export function detectBinaryFormat(head: Uint8Array): BinaryFormat | null {
  if (
    head.length >= 4 &&
    head[0] === 0x7f &&
    head[1] === 0x45 &&
    head[2] === 0x4c &&
    head[3] === 0x46
  ) {
    return "elf";
  }
  if (head.length >= 2 && head[0] === 0x4d && head[1] === 0x5a) return "pe";
  if (head.length >= 4) {
    const magic =
      ((head[0] ?? 0) << 24) | ((head[1] ?? 0) << 16) | ((head[2] ?? 0) << 8) | (head[3] ?? 0);
    if (MACH_O_MAGICS.has(magic >>> 0)) return "mach-o";
  }
  return null;
}
