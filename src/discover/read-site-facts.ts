import { listDir } from "../list-dir.ts";
import {
  type CondaEntryPointDistribution,
  scanCondaEntryPoints,
} from "./scan-conda-entry-points.ts";

/** What the fingerprint reads in conda's site folders: the bulk of its file-system reads. */
export interface SiteFacts {
  /** The version of the first `conda-*.dist-info` folder found, else null. */
  condaDist: string | null;
  plugins: CondaEntryPointDistribution[];
}

const CONDA_DIST_INFO = /^conda-([^-]+)\.dist-info$/;

/** Reads conda's dist-info version and the conda plugin distributions in `siteDirs`. */
export function readSiteFacts(siteDirs: readonly string[]): SiteFacts {
  return { condaDist: condaDistVersion(siteDirs), plugins: scanCondaEntryPoints(siteDirs) };
}

function condaDistVersion(siteDirs: readonly string[]): string | null {
  for (const dir of siteDirs) {
    for (const entry of listDir(dir)) {
      const match = CONDA_DIST_INFO.exec(entry);
      if (match?.[1]) return match[1];
    }
  }
  return null;
}
