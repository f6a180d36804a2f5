import { describe, expect, test } from "bun:test";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LineReader } from "../../src/stdio/line-reader.ts";
import { checkInputLine, StdioLineTransport } from "../../src/stdio/stdio-line-transport.ts";
import { byteInput } from "../support/byte-input.ts";
import { recordingOutput } from "../support/recording-output.ts";

const tick = () => new Promise((resolve) => setImmediate(resolve));

const LINES = [
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  }),
  "{not json",
  JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { cursor: 7 } }),
  "x".repeat(300),
  JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
];

/** What a transport dispatches and answers for LINES, with or without checking them first. */
async function serveLines(checkFirst: boolean) {
  const input = byteInput();
  const { output, written } = recordingOutput();
  const reader = new LineReader(input.stream, 180);
  input.write(`${LINES.join("\n")}\n`);
  await tick();
  if (checkFirst) for (const line of reader.waiting()) checkInputLine(line, reader.maxLineBytes);
  const dispatched: JSONRPCMessage[] = [];
  const transport = new StdioLineTransport(reader, output);
  transport.onmessage = (message) => dispatched.push(message);
  await transport.start();
  await transport.close();
  const answers = written
    .join("")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line));
  return { dispatched, answers };
}

describe("StdioLineTransport", () => {
  test("lines checked while they waited are dispatched and answered as unchecked ones", async () => {
    const late = await serveLines(false);
    const early = await serveLines(true);
    expect(early).toEqual(late);
    // The requests that fit are dispatched in order; the others get their errors, once each.
    expect(late.dispatched.map((m) => ("method" in m ? m.method : null))).toEqual([
      "initialize",
      "notifications/initialized",
    ]);
    expect(late.answers.map((a) => a.error.code)).toEqual([-32700, -32602, -32600]);
  });

  test("a line is checked once, whoever checks it first", async () => {
    const input = byteInput();
    const reader = new LineReader(input.stream);
    input.write(`${LINES[0]}\n`);
    await tick();
    const [line] = reader.waiting();
    if (line === undefined) throw new Error("the line did not arrive");
    expect(checkInputLine(line, reader.maxLineBytes)).toBe(
      checkInputLine(line, reader.maxLineBytes),
    );
  });
});
