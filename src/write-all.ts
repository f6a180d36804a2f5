/** Writes `text` and resolves once the stream took it: process.exit does not wait for a pipe. */
export function writeAll(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve, reject) =>
    stream.write(text, (error) => (error ? reject(error) : resolve())),
  );
}
