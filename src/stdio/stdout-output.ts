/** Where the server writes its lines; `done` runs once the text is handed to the OS, or failed. */
export interface LineOutput {
  write(text: string, done: () => void): void;
}

/**
 * Standard output through Bun's file sink: process.stdout would load Node's stream modules, as
 * process.stdin would (see LineReader). Writes keep their order. Once one fails (the client has
 * gone: EPIPE, thrown by write or by flush) every later one is dropped, as the input then ends
 * too.
 */
export function stdoutOutput(): LineOutput {
  const sink = Bun.stdout.writer();
  let broken = false;
  return {
    write(text, done) {
      if (broken) return done();
      const fail = () => {
        broken = true;
        done();
      };
      try {
        // Either may answer with a promise: when the pipe could not take everything at once.
        Promise.resolve(sink.write(text))
          .then(() => sink.flush())
          .then(() => done(), fail);
      } catch {
        fail();
      }
    },
  };
}

/** Writes `text` and resolves once the stream took it: process.exit does not wait for a pipe. */
export function writeAll(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve, reject) =>
    stream.write(text, (error) => (error ? reject(error) : resolve())),
  );
}
