import type { LineReader } from "./line-reader.ts";

/**
 * Resolves once a line waits in `reader` (left there for the next consumer), the input ends or
 * `ms` pass, whichever comes first.
 */
export function waitForLine(reader: LineReader, ms: number): Promise<void> {
  if (reader.waiting().length > 0) return Promise.resolve();
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
