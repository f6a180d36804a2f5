const TAIL_BYTES = 2048;
const MAX_LINE_CHARS = 200;

/** Tracks the last line of a byte stream in constant memory, for progress heartbeats. */
export function createLastLineTracker(): {
  push(chunk: Uint8Array): void;
  line(): string | null;
} {
  let tail = new Uint8Array(0);
  return {
    push(chunk) {
      if (chunk.byteLength >= TAIL_BYTES) {
        tail = chunk.slice(chunk.byteLength - TAIL_BYTES);
        return;
      }
      const keep = Math.min(tail.byteLength, TAIL_BYTES - chunk.byteLength);
      const next = new Uint8Array(keep + chunk.byteLength);
      next.set(tail.subarray(tail.byteLength - keep));
      next.set(chunk, keep);
      tail = next;
    },
    line() {
      // Progress output rewrites a line with \r: the text after the last \r is what shows.
      const lines = new TextDecoder().decode(tail).split(/[\r\n]+/);
      for (let index = lines.length - 1; index >= 0; index -= 1) {
        const line = lines[index]?.trim();
        if (line) return line.length > MAX_LINE_CHARS ? line.slice(-MAX_LINE_CHARS) : line;
      }
      return null;
    },
  };
}
