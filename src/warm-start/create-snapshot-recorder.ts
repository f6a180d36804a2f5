import type { Catalog } from "../catalog/catalog-types.ts";
import type { Config } from "../config.ts";
import type { Discovery } from "../discover/discover.ts";
import type { TransportObserver } from "../stdio/stdio-line-transport.ts";
import { type RecordedHandshake, recordHandshake } from "./record-handshake.ts";
import { recordCatalog, snapshotPlaceFor, writeStartupSnapshot } from "./startup-snapshot.ts";

/**
 * Records a stdio session's handshake answers, seen by `observer` or given to `record` (the first
 * one counts); `written` settles once they are stored.
 */
export interface SnapshotRecorder {
  observer: TransportObserver;
  record: (handshake: RecordedHandshake) => void;
  written: () => Promise<void>;
}

/**
 * Watches a stdio session and, once the server has answered a plain initialize and tools/list
 * (or the start-up answerer has, see `record`), stores those answers as the next start's
 * snapshot; null without a catalog cache.
 */
export function createSnapshotRecorder(input: {
  config: Config;
  discovery: Discovery;
  catalog: Catalog;
  version: string;
  log: (line: string) => void;
}): SnapshotRecorder | null {
  const { config, discovery } = input;
  const cache = discovery.cache;
  if (cache === null) return null;
  const place = snapshotPlaceFor(
    config,
    { executable: discovery.installation.executable, catalogKey: cache.key },
    input.version,
    input.log,
  );
  if (place === null) return null;
  let written: Promise<void> | null = null;
  const record = (handshake: RecordedHandshake) => {
    written ??= cache.stored.then((entryDigest) =>
      writeStartupSnapshot(place, {
        stamp: cache.stamp,
        entryDigest,
        ...handshake,
        catalog: recordCatalog(input.catalog),
      }),
    );
  };
  return {
    observer: recordHandshake(record),
    record,
    written: () => written ?? Promise.resolve(),
  };
}
