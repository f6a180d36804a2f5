import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { buildCatalog } from "../../src/catalog/build-catalog.ts";
import { credentialValues } from "../../src/catalog/redact-secrets.ts";
import type { RawAction, RawParser } from "../../src/introspection-payload.ts";
import { validateArgs } from "../../src/schema/validate-args.ts";
import { buildCapabilities } from "../../src/server/build-capabilities.ts";
import { buildInputSchema } from "../support/build-input-schema.ts";
import { type FixtureConda, makeFixtureConda } from "../support/make-fixture-conda.ts";
import { loadReferenceTree } from "../support/reference-tree.ts";
import { initializeLine, spawnRawServer } from "../support/spawn-raw-server.ts";
import { type RunningServer, startServer, withDeadline } from "../support/start-server.ts";
import { installLeakyPlugin } from "./install-leaky-plugin.ts";

// Each secret is unique text, so finding it anywhere is a leak.
const CHANNEL_TOKEN = "tk-CHANNEL-5f3a9c1e77";
const URL_PASSWORD = "pw-URLPASS-8d2b7e4411";
const URL_USER = "alice-URLUSER-41";
const ENV_SECRETS: Record<string, string> = {
  AWS_SECRET_ACCESS_KEY: "aws-SECRET-1f9e8d7c6b5a",
  CONDA_TOKEN: "ct-CONDATOKEN-0a1b2c3d4e",
  ANACONDA_API_TOKEN: "an-APITOKEN-4e5f6a7b8c",
  GITHUB_TOKEN: "ghp_GITHUBTOKEN0123456789abcdef",
  MY_DB_PASSWORD: "db-PASSWORD-9c8b7a6f5e",
};
const SECRETS = [CHANNEL_TOKEN, URL_PASSWORD, URL_USER, ...Object.values(ENV_SECRETS)];

const CONDARC = [
  "channels:",
  `  - https://conda.example.com/t/${CHANNEL_TOKEN}/private`,
  `  - https://${URL_USER}:${URL_PASSWORD}@repo.example.com/conda`,
  "",
].join("\n");

let fixture: FixtureConda;
let env: Record<string, string>;
let server: RunningServer;
let tools: Tool[];

beforeAll(async () => {
  fixture = await makeFixtureConda({ condarc: CONDARC });
  await installLeakyPlugin(fixture.sitePackages);
  env = { ...fixture.env, ...ENV_SECRETS };
  server = await startServer({ conda: fixture.condaExe, env });
  tools = (await server.client.listTools()).tools;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await fixture?.cleanup();
});

/** The secrets found in a text (none is the only right answer). */
function leaked(text: string): string[] {
  return SECRETS.filter((secret) => text.includes(secret));
}

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await withDeadline(
    server.client.callTool({ name, arguments: args }),
    30_000,
    `tools/call ${name}`,
  )) as CallToolResult;
}

describe("secrets in the target's configuration and environment", () => {
  test("the fixture really exposes them: conda sees the channels and the plugin is served", async () => {
    expect(tools.map((t) => t.name)).toContain("conda_leaky");
    const info = await call("conda_info", { json: true });
    const channels = (info.structuredContent as { parsed_json: { channels: string[] } }).parsed_json
      .channels;
    expect(channels.join(" ")).toContain(CHANNEL_TOKEN);
  });

  test("tools/list holds none of them", () => {
    expect(leaked(JSON.stringify(tools))).toEqual([]);
  });

  test("the capabilities resource holds none of them", async () => {
    const read = await server.client.readResource({ uri: "conda://capabilities" });
    const raw = JSON.stringify(read);
    expect(raw).toContain("fixture-leaky");
    expect(leaked(raw)).toEqual([]);
  });

  test("validation errors hold none of them, whatever was submitted", async () => {
    const wrong = [
      // A wrong choice would make the error list the expected choices (the second property
      // keeps the call a validation error once such choices are no longer enumerated).
      call("conda_leaky", { channel_url: "https://elsewhere.example.com", bogus: 1 }),
      call("conda_leaky", { token_choice: "guess", bogus: 1 }),
      call("conda_leaky", { mirror: 5, bogus: CHANNEL_TOKEN }),
      // Submitted secrets are not echoed either.
      call("conda_install", {
        channel: `https://x.example.com/t/${CHANNEL_TOKEN}/c`,
        packages: [],
      }),
      call("conda_install", { packages: [`-${ENV_SECRETS.GITHUB_TOKEN}`] }),
      call("conda_install", { [URL_PASSWORD]: true }),
    ];
    for (const result of await Promise.all(wrong)) {
      expect(result.isError).toBe(true);
      expect(text(result)).toContain("Invalid arguments");
      // Property names are the JSON path and may be named; values never.
      expect(leaked(text(result)).filter((s) => s !== URL_PASSWORD)).toEqual([]);
    }
  });

  test("policy and guard refusals hold none of them", async () => {
    const refused = [
      call("conda_install", {
        name: "demo",
        channel: [`https://conda.example.com/t/${CHANNEL_TOKEN}/private`],
        packages: [`pkg-${ENV_SECRETS.CONDA_TOKEN}`],
      }),
      call("conda_leaky", { mirror: `https://${URL_USER}:${URL_PASSWORD}@x.example.com` }),
      call("conda_env_remove", { name: ENV_SECRETS.AWS_SECRET_ACCESS_KEY }),
    ];
    for (const result of await Promise.all(refused)) {
      expect(result.isError).toBe(true);
      expect(text(result)).toContain("Start conda-mcp with");
      expect(leaked(text(result))).toEqual([]);
    }
  });

  test("startup diagnostics on stderr hold none of them", () => {
    expect(leaked(server.stderr())).toEqual([]);
  });

  test("a start from the catalog cache and its diagnostics hold none of them", async () => {
    for (const round of ["writes the cache", "reads the cache"]) {
      const raw = spawnRawServer({ conda: fixture.condaExe, env, cache: true });
      await raw.write(initializeLine(1));
      await raw.waitFor(`initialize (${round})`, (m) => m.id === 1);
      await raw.write(
        `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri: "conda://capabilities" } })}\n`,
      );
      await raw.write(`${JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" })}\n`);
      await raw.waitFor(`tools/list (${round})`, (m) => m.id === 3);
      await raw.waitFor(`capabilities (${round})`, (m) => m.id === 2);
      expect(await raw.close()).toBe(0);
      expect(leaked(raw.lines().join("\n"))).toEqual([]);
      expect(leaked(raw.stderr())).toEqual([]);
    }
  }, 60_000);
});

describe("catalog redaction on a recorded conda tree", () => {
  function parserAt(root: RawParser, path: string[]): RawParser {
    let node = root;
    for (const name of path) {
      const next = node.subcommands.find((p) => p.path[p.path.length - 1] === name);
      if (!next) throw new Error(`no ${path.join(" ")}`);
      node = next;
    }
    return node;
  }

  function actionOf(parser: RawParser, option: string): RawAction {
    const found = parser.actions.find((a) => a.option_strings.includes(option));
    if (!found) throw new Error(`no ${option}`);
    return found;
  }

  test("help, choices, defaults, deprecations, summaries and diagnostics come out clean", async () => {
    const reference = await loadReferenceTree();
    const tree = structuredClone(reference.tree);
    const url = `https://${URL_USER}:${URL_PASSWORD}@repo.example.com/t/${CHANNEL_TOKEN}/c`;
    const install = parserAt(tree, ["install"]);
    install.help = `Install from ${url} as ${ENV_SECRETS.CONDA_TOKEN}.`;
    install.description = `Uses $GITHUB_TOKEN=${ENV_SECRETS.GITHUB_TOKEN}.`;
    const channel = actionOf(install, "--channel");
    channel.help = `Channels: ${url}; key ${ENV_SECRETS.AWS_SECRET_ACCESS_KEY}.`;
    const experimental = actionOf(install, "--experimental");
    experimental.choices = [url, ENV_SECRETS.ANACONDA_API_TOKEN as string, "lock"];
    experimental.default = url;
    if (experimental.deprecated)
      experimental.deprecated.message = `Use ${url} (${ENV_SECRETS.MY_DB_PASSWORD}).`;
    // An action nothing explains makes its command raw-only, with a diagnostic naming it.
    const list = parserAt(tree, ["list"]);
    const odd = actionOf(list, "--json");
    odd.class = `plugin.Odd_${ENV_SECRETS.CONDA_TOKEN}`;
    odd.mro = [odd.class, "argparse.Action"];

    const catalog = buildCatalog(tree, { secretValues: credentialValues(ENV_SECRETS) });
    const dump = JSON.stringify(catalog);
    expect(dump).toContain("<redacted>");
    expect(leaked(dump)).toEqual([]);
    // conda://capabilities lists every argument of every command from the same tree.
    const capabilities = buildCapabilities({
      serverVersion: "0",
      targetExecutable: "/opt/conda/bin/conda",
      condaVersion: "26.7",
      fingerprint: "f",
      catalogSource: "introspection",
      handshakeSource: "server",
      catalog,
      tree,
      secretValues: credentialValues(ENV_SECRETS),
      plugins: [],
      listedTools: [],
      policy: { allowWrite: false, allowDestructive: false, allowExec: false },
    });
    expect(capabilities).toContain("<redacted>");
    expect(leaked(capabilities)).toEqual([]);
    const command = catalog.commands.find((c) => c.path.join(" ") === "install");
    if (!command) throw new Error("no install command");
    const schema = buildInputSchema(command);
    expect(leaked(JSON.stringify(schema.jsonSchema))).toEqual([]);
    // A choice carrying a credential cannot be listed; the value is then any string conda checks.
    const experimentalParam = command.params.find((p) => p.name === "experimental");
    expect(experimentalParam?.shape).toMatchObject({ value: { choices: null } });
    const refused = validateArgs(command, schema, { experimental: "nope" });
    expect(leaked(JSON.stringify(refused))).toEqual([]);
  });

  test("credential-like variables are recognised by name, short or empty values are not", () => {
    const values = credentialValues({
      ...ENV_SECRETS,
      NPM_AUTH_TOKEN: "npm-tok-123456",
      DATABASE_PASSWD: "passwd-value-1",
      SERVICE_API_KEY: "apikey-value-1",
      SHORT_TOKEN: "abc",
      EMPTY_SECRET: "",
      PATH: "/usr/bin:/bin",
      HOME: "/home/someone",
      TOKENIZERS_PARALLELISM: "false",
    });
    expect(values).toEqual(
      expect.arrayContaining([
        ...Object.values(ENV_SECRETS),
        "npm-tok-123456",
        "passwd-value-1",
        "apikey-value-1",
      ]),
    );
    expect(values).not.toContain("abc");
    expect(values).not.toContain("");
    expect(values).not.toContain("/usr/bin:/bin");
    expect(values).not.toContain("/home/someone");
  });

  test.each([
    ...["my_token", "Client_Secret", "db_password", "DB_PASSWD", "gpg_passphrase"],
    ...["ApiKey", "service_api_key", "accesskey", "AWS_ACCESS_KEY_ID", "privatekey"],
    ...["SSH_PRIVATE_KEY", "google_application_credentials", "OAUTH_HEADER"],
  ])("a variable named %s is a credential, in any case and anywhere in the name", (name) => {
    expect(credentialValues({ [name]: "value-123456" })).toEqual(["value-123456"]);
    expect(credentialValues({ [name.toLowerCase()]: "value-123456" })).toEqual(["value-123456"]);
  });

  test.each(["PATH", "HOME", "API-KEY", "KEYS", "PASS", "CONDA_PREFIX", "ACCESS"])(
    "a variable named %s is not a credential",
    (name) => {
      expect(credentialValues({ [name]: "value-123456" })).toEqual([]);
    },
  );
});
