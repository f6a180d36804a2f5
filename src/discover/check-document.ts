import * as v from "valibot";
import { describeFirstIssue } from "../describe-first-issue.ts";
import { CondaMcpError } from "../errors.ts";
import {
  type IntrospectionDocument,
  introspectionDocumentSchema,
  introspectionFailureSchema,
} from "../introspection-payload.ts";
import { summarizeMessage } from "./summarize-message.ts";

/**
 * The introspection document Python printed, checked against its schema. A failure the script
 * reported becomes CondaMcpError UNSUPPORTED_CONDA or INTROSPECTION_FAILED, as does a document
 * the schema refuses, with a readable message.
 */
export function checkDocument(document: unknown): IntrospectionDocument {
  const failure = v.safeParse(introspectionFailureSchema, document);
  if (failure.success) {
    const { code, message } = failure.output.error;
    throw new CondaMcpError(
      `Could not read conda's commands: ${summarizeMessage(message)}`,
      code === "UNSUPPORTED_CONDA" ? "UNSUPPORTED_CONDA" : "INTROSPECTION_FAILED",
    );
  }
  const result = v.safeParse(introspectionDocumentSchema, document);
  if (!result.success) {
    throw new CondaMcpError(
      `The introspection document is malformed: ${describeFirstIssue(result.issues)}.`,
      "INTROSPECTION_FAILED",
    );
  }
  return result.output;
}
