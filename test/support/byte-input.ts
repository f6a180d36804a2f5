/**
 * A web byte stream, as `Bun.stdin.stream()` gives the server its input, written to like a
 * Node stream: what the tests feed a LineReader.
 */
export function byteInput() {
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
  });
  const encoder = new TextEncoder();
  const write = (text: string) => controller?.enqueue(encoder.encode(text));
  return {
    stream,
    write,
    end(text?: string) {
      if (text !== undefined) write(text);
      controller?.close();
    },
    fail(error: Error) {
      controller?.error(error);
    },
  };
}
