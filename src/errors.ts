/** Codes for faults that stop the program at startup or reveal a programming error. */
export type ErrorCode =
  | "CONDA_NOT_FOUND"
  | "PYTHON_NOT_FOUND"
  | "STANDALONE_CONDA"
  | "INTROSPECTION_FAILED"
  | "UNSUPPORTED_CONDA"
  | "INVALID_OPTION"
  | "SETUP_FAILED"
  | "INTERNAL";

/** The one error class this program throws; expected outcomes are values, not exceptions. */
export class CondaMcpError extends Error {
  readonly code: ErrorCode;

  constructor(message: string, code: ErrorCode) {
    super(message);
    this.name = "CondaMcpError";
    this.code = code;
  }
}

/** The error a bad command line throws: the message says what to change and points at --help. */
export function invalidOption(message: string): CondaMcpError {
  return new CondaMcpError(`${message} (see conda-mcp --help)`, "INVALID_OPTION");
}
