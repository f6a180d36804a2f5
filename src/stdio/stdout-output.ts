/** Where the server writes its lines; `done` runs once the text is handed to the OS, or failed. */
export interface LineOutput {
  write(text: string, done: () => void): void;
}

/**
 * Standard output through Bun's file sink: process.stdout would load Node's stream modules, as
 * process.stdin would (see LineReader). Writes keep their order; one that fails (the client has
 * gone, EPIPE) is dropped, as the input then ends too.
 */
export function stdoutOutput(): LineOutput {
  const sink = Bun.stdout.writer();
  return {
    write(text, done) {
      sink.write(text);
      // flush() returns a promise only when the pipe could not take everything at once.
      Promise.resolve(sink.flush()).then(done, done);
    },
  };
}
