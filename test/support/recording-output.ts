import type { LineOutput } from "../../src/stdio/stdout-output.ts";

/** A LineOutput that keeps each text written to it, in order, and is done with it at once. */
export function recordingOutput(): { output: LineOutput; written: string[] } {
  const written: string[] = [];
  return {
    output: {
      write(text, done) {
        written.push(text);
        done();
      },
    },
    written,
  };
}
