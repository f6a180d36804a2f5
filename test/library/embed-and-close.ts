// Run as `bun embed-and-close.ts CONDA_EXE PID_FILE`: embeds a server, makes one call, starts a
// call that never ends (its pid goes to PID_FILE), closes the server and returns without exiting
// explicitly. The process ending by itself proves close() left no timer or handle behind.
import { existsSync, readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createCondaMcpServer } from "../../src/create-conda-mcp-server.ts";

const [conda = "", pidFile = ""] = process.argv.slice(2);
const embedded = await createCondaMcpServer({ conda, cache: false, allowExec: true });
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await embedded.server.connect(serverSide);
const client = new Client({ name: "embed-and-close", version: "0" });
await client.connect(clientSide);
await client.callTool({ name: "conda_info", arguments: { json: true } });
const pending = client
  .callTool({
    name: "conda_run",
    arguments: { executable_call: ["sh", "-c", `echo $$ > '${pidFile}'; exec sleep 100000`] },
  })
  .catch(() => null);
while (!existsSync(pidFile) || readFileSync(pidFile, "utf8").trim() === "") await Bun.sleep(20);
await embedded.close();
await pending;
console.log("closed");
