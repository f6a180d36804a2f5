import { type InputLine, parseInputLine } from "../stdio/line-reader.ts";
import { isJsonObject } from "../values.ts";

/** A request id as JSON-RPC carries it. */
export type RequestId = string | number;

/** An `initialize` request the start-up answerer may answer: see {@link plainInitialize}. */
export interface PlainInitialize {
  id: RequestId;
  protocolVersion: string;
}

// The answers depend on nothing else, so every check below only narrows what is answered
// early to a subset of what the SDK accepts; anything else goes to the full server.

const REQUEST_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
const NOTIFICATION_KEYS = new Set(["jsonrpc", "method", "params"]);

function onlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  return Object.keys(value).every((key) => allowed.has(key));
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || Number.isSafeInteger(value);
}

function isEmptyOrAbsent(value: unknown): boolean {
  return value === undefined || (isJsonObject(value) && Object.keys(value).length === 0);
}

function isOptional(value: unknown, check: (value: unknown) => boolean): boolean {
  return value === undefined || check(value);
}

function isObjectOfObjects(value: unknown): boolean {
  return isJsonObject(value) && Object.values(value).every(isJsonObject);
}

const CAPABILITY_CHECKS: Readonly<Record<string, (value: unknown) => boolean>> = {
  roots: (v) =>
    isJsonObject(v) &&
    onlyKeys(v, new Set(["listChanged"])) &&
    isOptional(v.listChanged, (b) => typeof b === "boolean"),
  sampling: (v) =>
    isJsonObject(v) &&
    onlyKeys(v, new Set(["context", "tools"])) &&
    isOptional(v.context, isJsonObject) &&
    isOptional(v.tools, isJsonObject),
  elicitation: (v) =>
    isJsonObject(v) &&
    onlyKeys(v, new Set(["form", "url"])) &&
    isOptional(
      v.form,
      (form) => isJsonObject(form) && isOptional(form.applyDefaults, (b) => typeof b === "boolean"),
    ) &&
    isOptional(v.url, isJsonObject),
  experimental: isObjectOfObjects,
  extensions: isObjectOfObjects,
};
// Capabilities the SDK knows but whose shapes are not checked here (tasks, ...) go to the SDK.
const KNOWN_CAPABILITIES = new Set([...Object.keys(CAPABILITY_CHECKS), "tasks"]);

function isPlainCapabilities(value: unknown): boolean {
  if (!isJsonObject(value)) return false;
  return Object.entries(value).every(([name, capability]) => {
    const check = CAPABILITY_CHECKS[name];
    // Names the SDK does not know are dropped by it, whatever they hold.
    return check ? check(capability) : !KNOWN_CAPABILITIES.has(name);
  });
}

const CLIENT_INFO_STRINGS = ["name", "version", "title", "websiteUrl", "description"];

function isPlainClientInfo(value: unknown): boolean {
  return (
    isJsonObject(value) &&
    typeof value.name === "string" &&
    typeof value.version === "string" &&
    !("icons" in value) &&
    CLIENT_INFO_STRINGS.every((key) => isOptional(value[key], (s) => typeof s === "string"))
  );
}

/**
 * The id and requested protocol version of an `initialize` request in its ordinary form
 * (string protocolVersion, client info of strings, capabilities of the documented shapes, no
 * `_meta`), or null for anything else, which only the full server answers.
 */
export function plainInitialize(message: unknown): PlainInitialize | null {
  if (!isJsonObject(message) || !onlyKeys(message, REQUEST_KEYS)) return null;
  if (message.jsonrpc !== "2.0" || message.method !== "initialize") return null;
  if (!isRequestId(message.id)) return null;
  const params = message.params;
  if (!isJsonObject(params) || "_meta" in params) return null;
  if (typeof params.protocolVersion !== "string") return null;
  if (!isPlainCapabilities(params.capabilities) || !isPlainClientInfo(params.clientInfo)) {
    return null;
  }
  return { id: message.id, protocolVersion: params.protocolVersion };
}

/**
 * The protocol versions the MCP SDK's Server accepts, newest first: its own list, which a test
 * holds equal to this one. Its module builds every zod schema of the protocol when it is loaded.
 */
export const PROTOCOL_VERSIONS: readonly string[] = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
];

/** Whether `lines` begin with a plain `initialize` asking for a protocol version the SDK accepts. */
export function opensPlainHandshake(lines: readonly InputLine[]): boolean {
  const first = lines[0] && parseInputLine(lines[0]);
  if (!first) return false;
  const initialize = plainInitialize(first.message);
  return initialize !== null && PROTOCOL_VERSIONS.includes(initialize.protocolVersion);
}

/** The id of a `tools/list` request without params (or with `{}`), else null. */
export function plainToolsList(message: unknown): RequestId | null {
  if (!isJsonObject(message) || !onlyKeys(message, REQUEST_KEYS)) return null;
  if (message.jsonrpc !== "2.0" || message.method !== "tools/list") return null;
  if (!isRequestId(message.id) || !isEmptyOrAbsent(message.params)) return null;
  return message.id;
}

/** Whether a message is the `notifications/initialized` notification without params. */
export function isPlainInitialized(message: unknown): boolean {
  return (
    isJsonObject(message) &&
    onlyKeys(message, NOTIFICATION_KEYS) &&
    message.jsonrpc === "2.0" &&
    message.method === "notifications/initialized" &&
    isEmptyOrAbsent(message.params)
  );
}

/** A `tools/call` request the server may start before the SDK is loaded: see {@link plainToolsCall}. */
export interface PlainToolsCall {
  id: RequestId;
  name: string;
  arguments: Record<string, unknown> | undefined;
  progressToken: string | number | undefined;
}

const CALL_PARAM_KEYS = new Set(["name", "arguments", "_meta"]);
const CALL_META_KEYS = new Set(["progressToken"]);

/**
 * A `tools/call` request in its ordinary form (a string name, arguments that are an object
 * without a `__proto__` key or absent, `_meta` holding at most a progress token, no `task`), or
 * null for anything else.
 */
export function plainToolsCall(message: unknown): PlainToolsCall | null {
  if (!isJsonObject(message) || !onlyKeys(message, REQUEST_KEYS)) return null;
  if (message.jsonrpc !== "2.0" || message.method !== "tools/call") return null;
  const { id, params } = message;
  if (!isRequestId(id) || !isJsonObject(params) || !onlyKeys(params, CALL_PARAM_KEYS)) return null;
  const { name, arguments: args, _meta: meta } = params;
  if (typeof name !== "string" || !isOptional(args, isJsonObject)) return null;
  // The SDK copies the arguments key by key into a new object, where a `__proto__` key is lost.
  if (isJsonObject(args) && Object.hasOwn(args, "__proto__")) return null;
  if (!isOptional(meta, (m) => isJsonObject(m) && onlyKeys(m, CALL_META_KEYS))) return null;
  const progressToken = isJsonObject(meta) ? meta.progressToken : undefined;
  if (!isOptional(progressToken, isRequestId)) return null;
  return {
    id,
    name,
    arguments: args as Record<string, unknown> | undefined,
    progressToken: progressToken as RequestId | undefined,
  };
}

/** The request id a `notifications/cancelled` notification names, else null. */
export function cancelledRequestId(message: unknown): RequestId | null {
  if (!isJsonObject(message) || message.method !== "notifications/cancelled") return null;
  const params = message.params;
  return isJsonObject(params) && isRequestId(params.requestId) ? params.requestId : null;
}
