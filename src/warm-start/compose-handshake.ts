import { toolDefinitions } from "../server/build-tool-registry.ts";
import type { ServerDeps } from "../server/server-deps.ts";
import { serverIdentity } from "../server/server-identity.ts";
import type { HandshakeAnswers } from "./answer-handshake.ts";
import { PROTOCOL_VERSIONS } from "./handshake-shapes.ts";

/**
 * This start's own answers to a plain handshake, exactly as the SDK's Server answers it (a test
 * compares them): `initialize` for a protocol version the SDK accepts (any other is the SDK's to
 * answer) and the tool list, built once on first use.
 */
export function composeHandshake(
  deps: Pick<ServerDeps, "version" | "glossary" | "entries" | "startupFingerprint">,
): HandshakeAnswers {
  const { serverInfo, capabilities, instructions } = serverIdentity(deps);
  let toolsListResult: string | null = null;
  return {
    initializeResult: (protocolVersion) =>
      PROTOCOL_VERSIONS.includes(protocolVersion)
        ? JSON.stringify({ protocolVersion, capabilities, serverInfo, instructions })
        : null,
    toolsListResult: () => {
      toolsListResult ??= JSON.stringify({ tools: toolDefinitions(deps.entries) });
      return toolsListResult;
    },
    fingerprint: deps.startupFingerprint,
  };
}
