import type { Catalog } from "../catalog/catalog-types.ts";
import type { Config } from "../config/config-types.ts";
import type { Discovery } from "../discover/discover.ts";
import type { TransportObserver } from "../stdio/stdio-line-transport.ts";
import { type AnsweredEarly, recordHandshake } from "./record-handshake.ts";
import { recordCatalog, snapshotPlaceFor } from "./startup-snapshot.ts";
import { writeStartupSnapshot } from "./write-startup-snapshot.ts";

/** Watches a stdio session for its handshake answers; `written` settles once they are stored. */
export interface SnapshotRecorder {
  observer: TransportObserver;
  written: () => Promise<void>;
}

/**
 * Watches a stdio session and, once a plain initialize and tools/list are answered (by the
 * server, or before it by the start-up answerer: `early`), stores those answers as the next
 * start's snapshot; null without a catalog cache.
 */
export function createSnapshotRecorder(
  input: {
    config: Config;
    discovery: Discovery;
    catalog: Catalog;
    version: string;
    log: (line: string) => void;
  },
  early: AnsweredEarly | null = null,
): SnapshotRecorder | null {
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
  let written: Promise<void> = Promise.resolve();
  const observer = recordHandshake((handshake) => {
    written = cache.store().then((entryDigest) =>
      writeStartupSnapshot(place, {
        stamp: cache.stamp,
        entryDigest,
        ...handshake,
        catalog: recordCatalog(input.catalog),
      }),
    );
  }, early);
  return { observer, written: () => written };
}
