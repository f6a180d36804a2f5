import type { Settings } from "./startup-option.ts";

/** Defaults in one place. */
export const DEFAULTS = {
  timeoutSeconds: 1800,
  maxOutputBytes: 1024 * 1024,
  maxStdinBytes: 1024 * 1024,
  introspectionTimeoutSeconds: 60,
  heartbeatMs: 5000,
} as const;

/** What the command line sets when it names no option: serve over stdio, read-only. */
export const DEFAULT_SETTINGS: Settings = {
  mode: "serve",
  http: null,
  httpAllowRemote: false,
  httpTokenFile: null,
  json: false,
  condaPath: null,
  allowWrite: false,
  allowDestructive: false,
  allowExec: false,
  readOnlyTools: false,
  tools: null,
  timeoutMs: DEFAULTS.timeoutSeconds * 1000,
  maxOutputBytes: DEFAULTS.maxOutputBytes,
  introspectionTimeoutMs: DEFAULTS.introspectionTimeoutSeconds * 1000,
  heartbeatMs: DEFAULTS.heartbeatMs,
  cache: true,
  schemaDetail: "compact",
  setupClient: null,
  setupScope: "user",
  print: false,
};
