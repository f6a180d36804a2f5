import { describe, expect, test } from "bun:test";
import {
  CallToolRequestSchema,
  InitializedNotificationSchema,
  InitializeRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { checkClientMessage } from "../../src/stdio/check-client-message.ts";
import {
  isPlainInitialized,
  plainInitialize,
  plainToolsCall,
  plainToolsList,
} from "../../src/warm-start/handshake-shapes.ts";

// What real clients send (shapes taken from their initialize requests).
const CLIENT_CAPABILITIES: Record<string, unknown>[] = [
  {},
  { roots: { listChanged: true } },
  { roots: {}, sampling: {} },
  { roots: { listChanged: true }, sampling: {}, elicitation: {} },
  { elicitation: { form: { applyDefaults: true }, url: {} } },
  { experimental: { "vendor/feature": {} }, extensions: { "io.example/ext": { v: 1 } } },
];

function initialize(params: Record<string, unknown>, id: unknown = 0): Record<string, unknown> {
  return { jsonrpc: "2.0", id, method: "initialize", params };
}

const plainParams = (capabilities: Record<string, unknown>) => ({
  protocolVersion: "2025-06-18",
  capabilities,
  clientInfo: { name: "client", version: "1.0.0" },
});

// Any JSON value, or none.
const anything = fc.oneof(
  fc.constant(undefined),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string(),
  fc.constant(null),
  fc.constant([]),
  fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
);
const rarely = (arb: fc.Arbitrary<unknown>) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 5 }, { arbitrary: arb, weight: 1 });
// Mostly well-formed values, so that plenty of messages are plain, sometimes anything.
const mostly = (good: fc.Arbitrary<unknown>) =>
  fc.oneof({ arbitrary: good, weight: 9 }, { arbitrary: anything, weight: 1 });

describe("handshake messages answered before the SDK is loaded", () => {
  test("the initialize requests of real clients are plain", () => {
    for (const capabilities of CLIENT_CAPABILITIES) {
      expect(plainInitialize(initialize(plainParams(capabilities), "a"))).toEqual({
        id: "a",
        protocolVersion: "2025-06-18",
      });
    }
  });

  test("anything unusual is left to the SDK", () => {
    const unusual = [
      initialize({ ...plainParams({}), _meta: { progressToken: 1 } }),
      initialize(plainParams({ tasks: { list: {} } })),
      initialize(plainParams({ roots: { listChanged: "yes" } })),
      initialize(plainParams({ sampling: { context: true } })),
      initialize({ ...plainParams({}), clientInfo: { name: "c", version: "1", icons: [] } }),
      initialize({ ...plainParams({}), protocolVersion: 20250618 }),
      initialize(plainParams({}), 1.5),
      initialize(plainParams({}), null),
      { ...initialize(plainParams({})), extra: true },
      { ...initialize(plainParams({})), jsonrpc: "1.0" },
    ];
    for (const message of unusual) expect(plainInitialize(message)).toBeNull();
    expect(
      plainToolsList({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { cursor: "x" } }),
    ).toBeNull();
    expect(
      isPlainInitialized({
        jsonrpc: "2.0",
        method: "notifications/initialized",
        params: { _meta: {} },
      }),
    ).toBe(false);
  });

  test("tools/list without params or with {} and the initialized notification are plain", () => {
    expect(plainToolsList({ jsonrpc: "2.0", id: 7, method: "tools/list" })).toBe(7);
    expect(plainToolsList({ jsonrpc: "2.0", id: "x", method: "tools/list", params: {} })).toBe("x");
    expect(isPlainInitialized({ jsonrpc: "2.0", method: "notifications/initialized" })).toBe(true);
  });

  // The early answers are only right if the SDK would have accepted the same message: whatever
  // the predicates call plain must pass the server's message check and the SDK's own schema.
  test("every message called plain is one the SDK accepts (property)", () => {
    const maybe = (arb: fc.Arbitrary<unknown>) => fc.option(arb, { nil: undefined });
    const objectish = mostly(
      fc.oneof(fc.constant({}), fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 2 })),
    );
    const optional = { requiredKeys: [] as [] };
    const capability = fc.record(
      {
        roots: mostly(fc.record({ listChanged: mostly(fc.boolean()) }, optional)),
        sampling: mostly(fc.record({ context: objectish, tools: objectish }, optional)),
        elicitation: mostly(
          fc.record(
            {
              form: mostly(fc.record({ applyDefaults: mostly(fc.boolean()) }, optional)),
              url: objectish,
            },
            optional,
          ),
        ),
        experimental: mostly(fc.dictionary(fc.string(), objectish, { maxKeys: 2 })),
        extensions: mostly(fc.dictionary(fc.string(), objectish, { maxKeys: 2 })),
        tasks: rarely(objectish),
        other: anything,
      },
      optional,
    );
    const clientInfo = fc.record({
      name: mostly(fc.string()),
      version: mostly(fc.string()),
      title: maybe(mostly(fc.string())),
      icons: rarely(anything),
      websiteUrl: maybe(mostly(fc.string())),
      description: maybe(mostly(fc.string())),
    });
    const params = fc.record(
      {
        protocolVersion: mostly(fc.constant("2025-06-18")),
        capabilities: mostly(capability),
        clientInfo: mostly(clientInfo),
        _meta: rarely(anything),
      },
      { requiredKeys: ["protocolVersion", "capabilities", "clientInfo"] },
    );
    const message = (method: string) =>
      fc.record(
        {
          jsonrpc: mostly(fc.constant("2.0")),
          id: (method.startsWith("notifications/") ? rarely : mostly)(
            fc.oneof(fc.integer(), fc.string()),
          ),
          method: mostly(fc.constant(method)),
          params: fc.oneof(
            { arbitrary: params, weight: 6 },
            { arbitrary: fc.constantFrom({}, undefined), weight: 2 },
            { arbitrary: anything, weight: 1 },
          ),
          extra: rarely(anything),
        },
        { requiredKeys: ["jsonrpc", "id", "method"] },
      );
    const plain = new Map<unknown, number>();
    const methods = ["initialize", "tools/list", "notifications/initialized"];
    fc.assert(
      fc.property(fc.oneof(...methods.map(message)), (value) => {
        // JSON round trip: the answerer only ever sees parsed lines.
        const parsed: unknown = JSON.parse(JSON.stringify(value));
        const schema =
          plainInitialize(parsed) !== null
            ? InitializeRequestSchema
            : plainToolsList(parsed) !== null
              ? ListToolsRequestSchema
              : isPlainInitialized(parsed)
                ? InitializedNotificationSchema
                : null;
        if (schema === null) return;
        plain.set(schema, (plain.get(schema) ?? 0) + 1);
        expect(checkClientMessage(parsed).ok).toBe(true);
        expect(schema.safeParse(parsed).success).toBe(true);
      }),
      { numRuns: 5000 },
    );
    // The property is only meaningful if plain messages of each kind were generated.
    for (const schema of [
      InitializeRequestSchema,
      ListToolsRequestSchema,
      InitializedNotificationSchema,
    ]) {
      expect(plain.get(schema) ?? 0).toBeGreaterThan(50);
    }
  });

  test("a tools/call whose arguments hold a __proto__ key is left to the SDK, which drops that key", () => {
    const line =
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"__proto__":{"a":1},"b":2}}}';
    const message: unknown = JSON.parse(line);
    expect(plainToolsCall(message)).toBeNull();
    const sdk = CallToolRequestSchema.safeParse(message);
    expect(Object.hasOwn(sdk.data?.params.arguments ?? {}, "__proto__")).toBe(false);
    const plain =
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"b":{"__proto__":1}}}}';
    // Deeper down the SDK keeps values as they are, so such a key is no obstacle there.
    const nested = JSON.parse(plain);
    expect(plainToolsCall(nested)?.arguments).toBe(nested.params.arguments);
    const kept = CallToolRequestSchema.safeParse(nested).data?.params.arguments?.b;
    expect(Object.hasOwn(kept as object, "__proto__")).toBe(true);
  });

  // A call started before the SDK is loaded must be one the SDK then hands to the handler.
  test("every tools/call called plain is one the SDK accepts, with the same name and arguments (property)", () => {
    const meta = fc.record(
      {
        progressToken: mostly(fc.oneof(fc.integer(), fc.string())),
        other: rarely(anything),
      },
      { requiredKeys: [] },
    );
    const params = fc.record(
      {
        name: mostly(fc.string()),
        arguments: fc.option(mostly(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 })), {
          nil: undefined,
        }),
        _meta: fc.option(mostly(meta), { nil: undefined }),
        task: rarely(anything),
        other: rarely(anything),
      },
      { requiredKeys: ["name"] },
    );
    const message = fc.record(
      {
        jsonrpc: mostly(fc.constant("2.0")),
        id: mostly(fc.oneof(fc.integer(), fc.string())),
        method: mostly(fc.constant("tools/call")),
        params: mostly(params),
        extra: rarely(anything),
      },
      { requiredKeys: ["jsonrpc", "id", "method"] },
    );
    let plain = 0;
    fc.assert(
      fc.property(message, (value) => {
        const parsed = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
        const call = plainToolsCall(parsed);
        if (call === null) return;
        plain++;
        expect(checkClientMessage(parsed).ok).toBe(true);
        const sdk = CallToolRequestSchema.safeParse(parsed);
        expect(sdk.success).toBe(true);
        expect(call.name).toBe(sdk.data?.params.name as string);
        expect(call.arguments).toEqual(sdk.data?.params.arguments);
        expect(call.progressToken).toEqual(sdk.data?.params._meta?.progressToken);
      }),
      { numRuns: 5000 },
    );
    expect(plain).toBeGreaterThan(500);
  });
});
