import type { LineReader } from "./line-reader.ts";

/**
 * Resolves once a line waits in `reader` (left there for the next consumer), the input ends or
 * `ms` pass, whichever comes first.
 */
export function waitForLine(reader: LineReader, ms: number): Promise<void> {
  // attach() offers a line that already waits at once, which ends the wait there and then.
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(done, ms);
    reader.attach({
      take: () => {
        done();
        return false;
      },
      end: done,
      error: done,
    });
  });
}
