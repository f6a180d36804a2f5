import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import {
  advertisedJsonSchema,
  type ToolInputJsonSchema,
  toolJsonSchema,
} from "../schema/build-input-schema.ts";
import { fallbackMessage, toArgumentIssues } from "../schema/validate-args.ts";
import { isJsonObject } from "../values.ts";
import { compareVersions } from "./compare-versions.ts";
import type { ManifestReader } from "./create-manifest-reader.ts";
import { CommandDescriptionSchema, describeCommand } from "./describe-command.ts";

/** The MCP tool's name. */
export const CLI_COMMAND_TOOL_NAME = "conda_cli_command";

/** The tool's description for `tools/list`. */
export const CLI_COMMAND_TOOL_DESCRIPTION =
  "Describe one conda command (options, positionals, direct subcommands, exclusive groups) " +
  "from the conda-completion manifest, without running conda. Read-only.";

/** Most command words accepted in `command_path`. */
export const MAX_COMMAND_PATH_ITEMS = 16;

/** Longest command word accepted in `command_path`. */
export const MAX_COMMAND_WORD_LENGTH = 256;

/** conda-completion releases before this wrote TOML (0.1) or a manifest without 0.3's fields. */
export const MIN_COMPLETION_VERSION = "0.3";

const WORD = `a non-empty string of at most ${MAX_COMMAND_WORD_LENGTH} characters`;

// Every schema carries its own expectation, so no valibot default (which quotes the received
// value) reaches a client.
const CliCommandInputSchema = v.strictObject(
  {
    command_path: v.optional(
      // Stops at the first wrong item, so the refusal does not grow with the input.
      v.config(
        v.pipe(
          v.array(
            v.pipe(
              v.string(WORD),
              v.minLength(1, WORD),
              v.maxCodePoints(MAX_COMMAND_WORD_LENGTH, WORD),
            ),
            "an array of strings",
          ),
          v.maxLength(
            MAX_COMMAND_PATH_ITEMS,
            `an array of at most ${MAX_COMMAND_PATH_ITEMS} items`,
          ),
          v.description(
            'Command words after `conda`, e.g. ["env", "remove"]; empty or absent for conda ' +
              'itself. An executable alias such as "cx" may stand first.',
          ),
        ),
        { abortEarly: true },
      ),
    ),
  },
  "an object",
);

/** JSON Schema of the tool's arguments. */
export const CLI_COMMAND_INPUT_SCHEMA = toolJsonSchema(advertisedJsonSchema(CliCommandInputSchema));

// valibot's object drops the keys it does not name, so every object of a result it parsed is
// closed; JSON Schema says so only when told.
function resultJsonSchema(schema: v.GenericSchema): ToolInputJsonSchema {
  const converted = toJsonSchema(schema, {
    errorMode: "throw",
    overrideSchema: ({ valibotSchema, jsonSchema }) =>
      valibotSchema.type === "object" ? { ...jsonSchema, additionalProperties: false } : undefined,
  });
  const { $schema: _dropped, ...rest } = converted as Record<string, unknown>;
  return toolJsonSchema(rest);
}

const CliCommandUnavailableSchema = v.object({
  availability: v.picklist(["not_installed", "not_generated", "unavailable"]),
  hint: v.string(),
  reason: v.optional(v.string()),
  installed_version: v.optional(v.string()),
});

const CliCommandAvailableSchema = v.object({
  availability: v.literal("available"),
  installed_version: v.string(),
  hint: v.optional(v.string()),
  ...CommandDescriptionSchema.entries,
});

/** The tool's structured result when the manifest cannot be used. */
export type CliCommandUnavailable = v.InferOutput<typeof CliCommandUnavailableSchema>;

/** The tool's structured result for a described command. */
export type CliCommandAvailable = v.InferOutput<typeof CliCommandAvailableSchema>;

// MCP takes one object schema for a tool's result: the fields of both results, only
// availability required (it keeps its place first; its value becomes the union of both's).
const CliCommandResultSchema = v.strictObject({
  ...v.partial(CliCommandUnavailableSchema).entries,
  ...v.partial(CliCommandAvailableSchema).entries,
  availability: v.picklist([
    CliCommandAvailableSchema.entries.availability.literal,
    ...CliCommandUnavailableSchema.entries.availability.options,
  ]),
});

/** JSON Schema of the tool's structured result. */
export const CLI_COMMAND_OUTPUT_SCHEMA = resultJsonSchema(CliCommandResultSchema);

/** What the server knows about the target conda when the tool is called. */
export interface CliCommandContext {
  /** From `locateManifest`. */
  manifestPath: string;
  /** The installed conda-completion distribution's version, or null when it is not installed. */
  installedVersion: string | null;
  /** `pluginHash` of the target's current entry-point names, or null when unknown. */
  currentPluginHash: string | null;
  /** Defaults to an uncached `readManifest`; pass `createManifestReader()` to reuse decodes. */
  readManifest?: ManifestReader;
}

/** A request the server answers with a JSON-RPC invalid-params error; `message` echoes no input. */
export interface CliCommandError {
  error: "invalid_params" | "unknown_command";
  message: string;
}

/** The tool's outcome: a structured result, or an invalid-params error for the server to raise. */
export type CliCommandOutcome = CliCommandAvailable | CliCommandUnavailable | CliCommandError;

const GENERATE_HINT =
  "Run `conda completion generate` in the environment that runs conda to create the manifest.";
const REGENERATE_HINT =
  "Run `conda completion generate` in the environment that runs conda to rewrite the manifest.";
const INSTALL_HINT =
  "Install conda-completion 0.3 or newer in the environment that runs conda, then run " +
  "`conda completion generate`.";
const UPGRADE_HINT =
  "Upgrade conda-completion to 0.3 or newer, then run `conda completion generate`.";
const STALE_HINT =
  "Plugins were added or removed since the manifest was generated; run " +
  "`conda completion generate` to refresh it.";

/**
 * Runs the read-only `conda_cli_command` tool: validates the arguments, checks that a
 * conda-completion 0.3+ manifest exists, reads it (on every call, so a regenerated file is seen)
 * and describes the requested command. It never runs conda and never regenerates the file.
 */
export async function cliCommandTool(
  context: CliCommandContext,
  input: unknown,
): Promise<CliCommandOutcome> {
  const parsed = parseInput(input);
  if ("error" in parsed) return parsed;

  const installed = context.installedVersion;
  if (installed === null) return { availability: "not_installed", hint: INSTALL_HINT };
  const order = compareVersions(installed, MIN_COMPLETION_VERSION);
  if (order === null) {
    return {
      availability: "unavailable",
      reason: "the installed conda-completion version is not a PEP 440 version",
      hint: UPGRADE_HINT,
      installed_version: installed,
    };
  }
  if (order < 0) {
    return {
      availability: "unavailable",
      reason: "the installed conda-completion is older than 0.3",
      hint: UPGRADE_HINT,
      installed_version: installed,
    };
  }

  // The reader (msgpack and node:fs/promises) loads only once a manifest is to be read.
  const read = context.readManifest ?? (await import("./read-manifest.ts")).readManifest;
  const result = await read(context.manifestPath);
  if (result.state === "not_generated") {
    return { availability: "not_generated", hint: GENERATE_HINT, installed_version: installed };
  }
  if (result.state === "unavailable") {
    return {
      availability: "unavailable",
      reason: result.reason,
      hint: REGENERATE_HINT,
      installed_version: installed,
    };
  }

  const description = describeCommand(result.manifest, parsed.commandPath, {
    currentPluginHash: context.currentPluginHash,
  });
  if ("error" in description) {
    return {
      error: "unknown_command",
      message: "command_path: expected a command path present in the completion manifest",
    };
  }
  const output: CliCommandAvailable = {
    availability: "available",
    installed_version: installed,
    ...description,
  };
  if (description.stale === true) output.hint = STALE_HINT;
  return output;
}

function parseInput(input: unknown): { commandPath: string[] } | CliCommandError {
  // No arguments at all describe conda itself.
  const args = input ?? {};
  if (!isJsonObject(args)) return invalid("/: expected an object");
  const parsed = v.safeParse(CliCommandInputSchema, args, { message: fallbackMessage });
  if (parsed.success) return { commandPath: parsed.output.command_path ?? [] };
  return invalid(
    toArgumentIssues(parsed.issues)
      .map((issue) => `${issue.path}: ${issue.message}`)
      .join("; "),
  );
}

function invalid(message: string): CliCommandError {
  return { error: "invalid_params", message };
}
