import { describe, expect, test } from "bun:test";
import { LineReader } from "../../src/stdio/line-reader.ts";
import { answerHandshake, type HandshakeAnswers } from "../../src/warm-start/answer-handshake.ts";
import { byteInput } from "../support/byte-input.ts";
import { recordingOutput } from "../support/recording-output.ts";
import { initializeLine } from "../support/spawn-raw-server.ts";

const INITIALIZED = `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`;
const LIST = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })}\n`;
const PING = `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" })}\n`;

/** Answers for one protocol version that count how often the tool list was asked for. */
function countingAnswers(): HandshakeAnswers & { made: () => number } {
  let made = 0;
  return {
    initializeResult: (version) => (version === "2025-06-18" ? '{"init":true}' : null),
    toolsListResult: () => {
      made += 1;
      return '{"tools":[]}';
    },
    fingerprint: "f",
    made: () => made,
  };
}

/** The answerer on a reader of `input`, with the lines it writes. */
function answering(input: ReturnType<typeof byteInput>, answers: HandshakeAnswers) {
  const reader = new LineReader(input.stream);
  const { output, written } = recordingOutput();
  const handover = answerHandshake(answers, reader, output, new AbortController().signal);
  return { reader, written, handover };
}

describe("the start-up answerer", () => {
  test("answers a pipelined plain handshake, then hands over what it handled and the rest", async () => {
    const input = byteInput();
    input.write(`${initializeLine(0, "2025-06-18")}${INITIALIZED}${LIST}${PING}`);
    const answers = countingAnswers();
    const { reader, written, handover } = answering(input, answers);
    const taken = await handover;
    expect(written).toEqual([
      '{"jsonrpc":"2.0","id":0,"result":{"init":true}}\n',
      '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\n',
    ]);
    expect(taken?.replay.map((m) => (m as { method: string }).method)).toEqual([
      "initialize",
      "notifications/initialized",
    ]);
    expect(taken?.answered).toEqual({
      protocolVersion: "2025-06-18",
      initializeResult: '{"init":true}',
      toolsListResult: '{"tools":[]}',
    });
    expect(reader.waiting()).toEqual([{ text: PING.trim() }]);
    input.end();
  });

  test("makes the tool list once its initialize answer is out, before tools/list is asked", async () => {
    const input = byteInput();
    input.write(initializeLine(0, "2025-06-18"));
    const answers = countingAnswers();
    const { written, handover } = answering(input, answers);
    while (answers.made() === 0) await Bun.sleep(1);
    expect(written.length).toBe(1);
    input.write(LIST);
    expect((await handover)?.answered?.toolsListResult).toBe('{"tools":[]}');
    input.end();
  });

  test("makes no tool list when the client has gone after initialize", async () => {
    const input = byteInput();
    input.end(initializeLine(0, "2025-06-18"));
    const answers = countingAnswers();
    const { written, handover } = answering(input, answers);
    expect(await handover).toBeNull();
    await Bun.sleep(5);
    expect(written.length).toBe(1);
    expect(answers.made()).toBe(0);
  });

  test("hands an initialize it has no answer for to the full server, answering nothing", async () => {
    const input = byteInput();
    input.write(`${initializeLine(0, "2024-11-05")}${LIST}`);
    const { reader, written, handover } = answering(input, countingAnswers());
    const taken = await handover;
    expect(written).toEqual([]);
    expect(taken).toEqual({
      replay: [],
      fingerprint: "f",
      answered: null,
    });
    expect(reader.waiting().length).toBe(2);
    input.end();
  });

  test("leaves tools/list to the full server when the tool list fails to build", async () => {
    const input = byteInput();
    input.write(`${initializeLine(0, "2025-06-18")}${INITIALIZED}${LIST}`);
    const failing: HandshakeAnswers = {
      ...countingAnswers(),
      toolsListResult: () => {
        throw new Error("a definition failed");
      },
    };
    const { reader, written, handover } = answering(input, failing);
    const taken = await handover;
    expect(written).toEqual(['{"jsonrpc":"2.0","id":0,"result":{"init":true}}\n']);
    expect(taken?.answered).toEqual({
      protocolVersion: "2025-06-18",
      initializeResult: '{"init":true}',
      toolsListResult: null,
    });
    expect(reader.waiting()).toEqual([{ text: LIST.trim() }]);
    input.end();
  });
});
