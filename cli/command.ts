// What a command declares to main.ts: its help text, its flags and how many operands it takes.
// main.ts parses every command line against this, so each command reads typed arguments only.

export interface Flag {
  /** `['-p', '--project']`: every spelling; the last one names the key in `ParsedArgs.flags`. */
  readonly names: readonly string[];
  /** The value's placeholder (`<tsconfig>`); absent for a switch. */
  readonly value?: string;
  /** Allowed values, when there is a fixed set. */
  readonly choices?: readonly string[];
  readonly help: string;
}

export interface ParsedArgs {
  readonly operands: readonly string[];
  /** By long name without dashes: `project`, `route`. A switch is `'true'`. */
  readonly flags: Readonly<Record<string, string>>;
}

export interface Command {
  readonly name: string;
  /** One line for `lockweave --help`. */
  readonly summary: string;
  /** `lockweave build [-p <tsconfig>]` */
  readonly synopsis: string;
  /** Paragraphs after the flags in `lockweave <command> --help`: what it does, exit codes, examples. */
  readonly details: string;
  readonly flags: readonly Flag[];
  readonly operands: { readonly min: number; readonly max: number; readonly name: string };
  run(args: ParsedArgs): number | Promise<number>;
}

export const PROJECT_FLAG: Flag = {
  names: ['-p', '--project'],
  value: '<tsconfig>',
  help: 'the tsconfig.json to read (default: ./tsconfig.json)',
};

export function flagKey(flag: Flag): string {
  return flag.names[flag.names.length - 1].replace(/^-+/, '');
}
