// The two ways a command fails on its input, apart from what it was asked to find.
//   UsageError: the command line itself is wrong (unknown command or flag, missing argument): exit 2.
//   CliError:   the command line is right but its input is not (no tsconfig, unreadable file): exit 1.

export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}
