/** The head of a stream as text, and whether bytes past the cap were dropped. */
export interface CappedText {
  text: string;
  truncated: boolean;
}

/** A running capped read: its outcome, and a way to stop waiting for the stream's end. */
export interface CappedRead {
  result: Promise<CappedText>;
  stop(): void;
}

/**
 * Reads a byte stream to its end, keeping at most maxBytes of its head (decoded as UTF-8, never
 * splitting a character at the cut) and draining the rest so the writer never blocks; onChunk
 * sees every chunk before a dropped one is released, so it must copy what it keeps.
 */
export function readCapped(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
  onChunk?: (chunk: Uint8Array) => void,
): CappedRead {
  const reader = stream.getReader();
  const kept: Uint8Array[] = [];
  let keptBytes = 0;
  let truncated = false;

  const result = (async (): Promise<CappedText> => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        onChunk?.(value);
        const room = maxBytes - keptBytes;
        if (value.byteLength <= room) {
          kept.push(value);
          keptBytes += value.byteLength;
          continue;
        }
        if (room > 0) {
          // A copy: a view would pin the whole chunk's buffer.
          kept.push(value.slice(0, room));
          keptBytes += room;
        }
        truncated = true;
        release(value);
      }
    } catch {
      // A broken pipe ends the output like EOF does; keep what arrived.
    }
    const head = Buffer.concat(kept, keptBytes);
    const text = new TextDecoder().decode(truncated ? head.subarray(0, utf8Boundary(head)) : head);
    return { text, truncated };
  })();

  return {
    result,
    stop() {
      reader.cancel().catch(() => {});
    },
  };
}

// Frees a dropped chunk's memory now rather than at the next garbage collection. Every chunk of
// a subprocess pipe is a fresh buffer that Bun cannot read into a reused one (no BYOB reader), and
// the collector lets tens of MiB of them pile up, costing about three times that in RSS, before it
// reclaims them. Only a chunk spanning its whole buffer is detached, so no other view loses bytes.
function release(chunk: Uint8Array): void {
  const { buffer } = chunk;
  if (!(buffer instanceof ArrayBuffer)) return;
  if (chunk.byteOffset !== 0 || chunk.byteLength !== buffer.byteLength) return;
  try {
    buffer.transfer(0);
  } catch {
    // A buffer that cannot be detached is left to the collector.
  }
}

// Length of the longest prefix that does not end inside a multibyte UTF-8 sequence.
function utf8Boundary(bytes: Uint8Array): number {
  const end = bytes.byteLength;
  for (let back = 1; back <= Math.min(3, end); back += 1) {
    const byte = bytes[end - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: look further back
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? end - back : end;
  }
  return end;
}
