import path from "node:path";
import { writePrivateFile } from "../discover/write-cache-file.ts";
import { errorCode } from "../values.ts";
import {
  answersDigest,
  SNAPSHOT_FORMAT,
  type SnapshotHeader,
  type SnapshotPlace,
  type StartupSnapshot,
  snapshotFile,
} from "./startup-snapshot.ts";

/** Stores a snapshot at `place` (atomic, private); failures are logged, never thrown. */
export async function writeStartupSnapshot(
  place: SnapshotPlace,
  snapshot: StartupSnapshot,
): Promise<void> {
  try {
    const { stamp, entryDigest, protocolVersion, initializeResult, toolsListResult } = snapshot;
    const digest = answersDigest(initializeResult, toolsListResult);
    const header: SnapshotHeader = {
      format: SNAPSHOT_FORMAT,
      key: place.key,
      stamp,
      entryDigest,
      protocolVersion,
      digest,
      catalogDigest: snapshot.catalog.digest,
    };
    // The catalog's bytes as recorded, not decoded to be encoded again.
    const answers = `${JSON.stringify(header)}\n${initializeResult}\n${toolsListResult}\n`;
    const bytes = Buffer.concat([Buffer.from(answers), snapshot.catalog.bytes, Buffer.from("\n")]);
    await writePrivateFile(place.cache.cacheDir, path.basename(snapshotFile(place)), bytes);
  } catch (error) {
    place.cache.log?.(`startup snapshot: not written (${errorCode(error) ?? "unexpected error"})`);
  }
}
