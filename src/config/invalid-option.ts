import { CondaMcpError } from "../errors.ts";

/** The error a bad command line throws: the message says what to change and points at --help. */
export function invalidOption(message: string): CondaMcpError {
  return new CondaMcpError(`${message} (see conda-mcp --help)`, "INVALID_OPTION");
}
