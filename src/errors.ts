/**
 * Typed errors. Every error a user can cause carries what went wrong and where
 * (file and line, option name, node label) so the CLI can print it on one line
 * and exit with a status that tells scripts what kind of failure it was.
 */

/** Exit statuses used by the CLI, one per kind of failure. */
export const ExitCode = {
  /** Bad input data: unreadable, malformed or inconsistent files. */
  input: 1,
  /** Bad usage: an unknown option, a value out of range, an unknown node. */
  usage: 2,
  /** An iterative method stopped at its iteration limit before its tolerance. */
  notConverged: 3,
  /** A store that stopped answering (sysexits' EX_TEMPFAIL): the same command may succeed later. */
  unavailable: 75,
} as const;

export class WgaError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
  }
}

/** A file that does not exist or cannot be opened. */
export class FileNotFoundError extends WgaError {
  readonly path: string;
  constructor(path: string, cause?: string) {
    super(`${path}: ${cause ?? 'no such file'}`, ExitCode.input);
    this.path = path;
  }
}

/** A malformed or inconsistent input file; `line` is 1-based when known. */
export class InputFormatError extends WgaError {
  readonly path: string;
  readonly line: number | undefined;
  constructor(path: string, line: number | undefined, problem: string) {
    super(`${path}${line === undefined ? '' : `:${line}`}: ${problem}`, ExitCode.input);
    this.path = path;
    this.line = line;
  }
}

/** An option or argument with a value the program cannot use. */
export class OptionError extends WgaError {
  readonly option: string;
  constructor(option: string, problem: string) {
    super(`${option}: ${problem}`, ExitCode.usage);
    this.option = option;
  }
}

/** A page named by the user (a root, a teleport page) that the graph does not have. */
export class UnknownNodeError extends WgaError {
  readonly label: string;
  constructor(label: string, where: string) {
    super(`${where}: no page labelled '${label}' in the graph`, ExitCode.usage);
    this.label = label;
  }
}
