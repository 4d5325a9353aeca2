#!/usr/bin/env node
// lockweave's command line: parses the arguments against each command's declared flags, answers
// --help and --version, and hands the command its typed arguments. Commands live in commands/.
//
// Exit codes, for every command: 0 done and nothing found; 1 something found (a tag error, a
// toolchain hole, an unwoven method) or an input that cannot be read; 2 a wrong command line.
import { BuildDependencyError } from '../transformer/build-dependency';
import { LOCKWEAVE_VERSION } from '../transformer/version';
import { CliError, UsageError } from './cli-error';
import { flagKey, type Command, type Flag, type ParsedArgs } from './command';
import { build } from './commands/build';
import { check } from './commands/check';
import { locks } from './commands/locks';
import { show } from './commands/show';
import { unlock } from './commands/unlock';
import { verify } from './commands/verify';
import { printArgument } from './without-credentials';

const COMMANDS: readonly Command[] = [build, check, verify, show, locks, unlock];

const HELP_FLAG: Flag = { names: ['-h', '--help'], help: 'print this help' };

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'usage: lockweave <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Options:',
    "  -h, --help     print help (after a command: that command's help)",
    "  -v, --version  print lockweave's version",
    '',
    'Exit codes: 0 nothing found; 1 a tag error, toolchain hole or unwoven method (or unreadable input); 2 bad command line.',
    "Run `lockweave <command> --help` for a command's options and examples.",
  ].join('\n');
}

function commandHelp(command: Command): string {
  const flags = [...command.flags, HELP_FLAG];
  const spelled = flags.map((f) => `${f.names.join(', ')}${f.value ? ` ${f.value}` : ''}`);
  const width = Math.max(...spelled.map((s) => s.length));
  return [
    `usage: ${command.synopsis}`,
    '',
    command.summary,
    '',
    'Options:',
    ...flags.map((f, i) => `  ${spelled[i].padEnd(width)}  ${f.help}`),
    '',
    command.details,
  ].join('\n');
}

type Parsed = { help: true; command?: Command } | { help: false; command: Command; args: ParsedArgs };

// An argument is echoed only through printArgument: a URL given where none was expected (after
// --cluster, which takes no value, or without --redis) carries its password into the message.
function parse(command: Command, argv: readonly string[]): Parsed {
  const operands: string[] = [];
  /** For each operand, the switch just before it, if any: the operand was probably meant as its value. */
  const afterSwitch: Array<string | undefined> = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-h' || arg === '--help') return { help: true, command };
    if (arg === '--') {
      operands.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      const before = command.flags.find((f) => !f.value && f.names.includes(argv[i - 1]));
      operands.push(arg);
      afterSwitch[operands.length - 1] = before ? argv[i - 1] : undefined;
      continue;
    }
    const [name, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    const flag = command.flags.find((f) => f.names.includes(name));
    if (!flag)
      throw new UsageError(`unknown option ${printArgument(name)} for \`lockweave ${command.name}\``, command.name);
    if (!flag.value) {
      if (inline !== undefined) throw new UsageError(noValueMessage(command, name, inline), command.name);
      flags[flagKey(flag)] = 'true';
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined || (inline === undefined && value.startsWith('-') && value !== '-')) {
      throw new UsageError(`${name} needs a value: ${name} ${flag.value}`, command.name);
    }
    if (flag.choices && !flag.choices.includes(value)) {
      throw new UsageError(`${name} ${printArgument(value)}: expected one of ${flag.choices.join(', ')}`, command.name);
    }
    flags[flagKey(flag)] = value;
  }
  const { min, max, name } = command.operands;
  if (operands.length < min) throw new UsageError(`missing ${name}`, command.name);
  if (operands.length > max) {
    // A URL among them is the one to name (`unlock <url> <key>`: the key is not what is wrong).
    const url = operands.findIndex((operand) => operand.includes('://'));
    const at = url >= 0 ? url : max;
    const stray = operands[at];
    const after = afterSwitch[at];
    const hint = after ? `: ${noValueMessage(command, after, stray)}` : redisHint(command, stray);
    throw new UsageError(`unexpected argument ${printArgument(stray)}${hint}`, command.name);
  }
  return { help: false, command, args: { operands, flags } };
}

/** `--cluster takes no value`, and where a URL given to it goes. */
function noValueMessage(command: Command, name: string, value: string): string {
  return `${name} takes no value${redisHint(command, value)}`;
}

/** A URL where a command that talks to Redis expected none: --redis is where it goes. */
function redisHint(command: Command, arg: string): string {
  const takesRedis = command.flags.some((f) => f.names.includes('--redis'));
  return takesRedis && arg.includes('://') ? '; name the server with --redis <url>' : '';
}

async function main(argv: readonly string[]): Promise<number> {
  const [first, ...rest] = argv;
  try {
    if (first === undefined) throw new UsageError('no command given');
    if (first === '-h' || first === '--help' || first === 'help') {
      const named = COMMANDS.find((c) => c.name === rest[0]);
      console.log(named ? commandHelp(named) : usage());
      return 0;
    }
    if (first === '-v' || first === '--version') {
      console.log(LOCKWEAVE_VERSION);
      return 0;
    }
    const command = COMMANDS.find((c) => c.name === first);
    if (!command)
      throw new UsageError(`${first.startsWith('-') ? 'unknown option' : 'unknown command'} ${printArgument(first)}`);
    const parsed = parse(command, rest);
    if (parsed.help) {
      console.log(commandHelp(command));
      return 0;
    }
    return await parsed.command.run(parsed.args);
  } catch (error) {
    if (error instanceof UsageError) {
      const command = COMMANDS.find((c) => c.name === error.command);
      console.error(
        `lockweave: ${error.message}\n\n${command ? `usage: ${command.synopsis}\nRun \`lockweave ${command.name} --help\` for more.` : usage()}`,
      );
      return 2;
    }
    if (error instanceof CliError) {
      console.error(`lockweave: ${error.message}`);
      return 1;
    }
    // The compiler a command runs on is not installed: what to install, not a stack.
    if (error instanceof BuildDependencyError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // A bug, not an input problem: the stack says where.
    console.error(error);
    process.exitCode = 1;
  },
);
