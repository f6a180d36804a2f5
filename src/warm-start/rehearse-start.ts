import { createStreamedCatalog } from "../catalog/build-catalog.ts";
import { credentialValues } from "../catalog/redact-secrets.ts";
import type { Config } from "../config/config-types.ts";
import { discoveredConda } from "../discover/discover.ts";
import { createDocumentReader } from "../discover/introspect.ts";
import { prepareServer } from "../server/prepare-server.ts";
import { composeHandshake } from "./compose-handshake.ts";
import { PROTOCOL_VERSIONS } from "./handshake-shapes.ts";
import recorded from "./rehearsal-document.jsonl" with { type: "text" };

/**
 * Runs what a cold start does with conda's Python's lines and after them (read and check them,
 * build the catalog as they come, prepare the server, compose the handshake answers) on a small recorded
 * document (scripts/record-rehearsal-document.ts), while that Python runs. Code runs several
 * times slower the first time than after (its bytecode linked, its caches filled): the start pays
 * that here, on another core, instead of on its way to answering. Nothing is kept, nothing is
 * run, no file is touched. Returns the `tools/list` result it composed.
 */
export function rehearseStart(config: Config, version: string): string {
  const streamed = createStreamedCatalog(credentialValues(config.env));
  const bytes = new TextEncoder().encode(recorded);
  const reader = createDocumentReader({
    maxBytes: bytes.byteLength,
    onCommand: streamed.onCommand,
  });
  reader.push(bytes);
  const outcome = reader.outcome();
  const catalog = streamed.finish();
  if (outcome.kind === "failed") throw outcome.error;
  if (outcome.kind === "pending" || catalog === null) {
    throw new Error("the recorded document is not complete");
  }
  const { document } = outcome;
  const executable = `${document.root_prefix}/bin/conda`;
  const conda = discoveredConda(
    executable,
    {
      python: document.python_executable,
      pythonSource: "shebang",
      condaArgv: [executable],
      introspection: document,
      fingerprint: "",
    },
    "introspection",
  );
  // Without --tools: the tools it names need not be among the rehearsal's.
  const prepared = prepareServer({
    config: { ...config, tools: null },
    conda,
    catalog,
    version,
    log: () => {},
    handshakeSource: "server",
  });
  const answers = composeHandshake(prepared.deps);
  answers.initializeResult(PROTOCOL_VERSIONS[0] as string);
  return answers.toolsListResult();
}
