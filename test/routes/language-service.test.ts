// lockweave/language-service driven as an editor drives it: tsserver (TypeScript 5.9 and 6.0) over
// its protocol, a project whose tsconfig names the plugin. The editor gets the tag errors among the
// file's semantic diagnostics, quick info on a tag (the key it locks, its options, the woven
// shape) and the attribute names as completions inside a tag.
import test from 'ava';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT } from '../helpers/fixture-projects';

const SOURCE = `export class Payments {
  /** @redisLock businessFlag=payOrder keyName=orderNo lockTime=10s */
  async pay(orderNo: string): Promise<string> {
    return orderNo;
  }

  /** @redisLock bussinessFlag=refund keyName=orderNo */
  async refund(orderNo: string): Promise<string> {
    return orderNo;
  }

  /** @redisLock businessFlag=ship  */
  async ship(orderNo: string): Promise<string> {
    return orderNo;
  }
}
`;

/** One tsserver process: requests in, Content-Length framed messages out, each bounded in time. */
class TsServer {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = Buffer.alloc(0);
  private seq = 0;
  private readonly waiting = new Map<number, (body: unknown) => void>();

  constructor(tsserver: string) {
    this.child = spawn(process.execPath, [tsserver, '--disableAutomaticTypingAcquisition'], {
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    this.child.stdout.on('data', (chunk: Buffer) => this.read(chunk));
  }

  private read(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const header = /^Content-Length: (\d+)\r\n\r\n/.exec(this.buffer.toString('latin1', 0, 64));
      if (!header) return;
      const start = header[0].length;
      const length = Number(header[1]);
      if (this.buffer.length < start + length) return;
      const message = JSON.parse(this.buffer.toString('utf8', start, start + length));
      this.buffer = this.buffer.subarray(start + length);
      if (message.type === 'response') this.waiting.get(message.request_seq)?.(message);
    }
  }

  request(command: string, args: object): Promise<{ success: boolean; body?: unknown; message?: string }> {
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`tsserver did not answer ${command} in 60 s`)), 60_000);
      this.waiting.set(seq, (message) => {
        clearTimeout(timer);
        resolve(message as { success: boolean; body?: unknown });
      });
      this.child.stdin.write(`${JSON.stringify({ seq, type: 'request', command, arguments: args })}\n`);
    });
  }

  /** A request tsserver answers with no response (open): sent, not awaited. */
  notify(command: string, args: object): void {
    this.child.stdin.write(`${JSON.stringify({ seq: ++this.seq, type: 'request', command, arguments: args })}\n`);
  }

  stop(): void {
    this.child.kill();
  }
}

function project(): { dir: string; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lockweave-ls-'));
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'commonjs',
        strict: true,
        plugins: [{ transform: 'lockweave/transformer', prefix: 'ED_' }, { name: 'lockweave/language-service' }],
      },
      include: ['src'],
    }),
  );
  const file = path.join(dir, 'src', 'pay.ts');
  fs.writeFileSync(file, SOURCE);
  return { dir, file };
}

/** 1-based line and offset of `needle` (its `at`-th character) in SOURCE. */
function where(needle: string, at = 0): { line: number; offset: number } {
  const index = SOURCE.indexOf(needle) + at;
  const before = SOURCE.slice(0, index).split('\n');
  return { line: before.length, offset: before[before.length - 1].length + 1 };
}

for (const [name, tsserver] of [
  ['TypeScript 5.9', path.join(ROOT, 'node_modules', 'typescript', 'lib', 'tsserver.js')],
  ['TypeScript 6.0', path.join(ROOT, 'node_modules', 'typescript6', 'lib', 'tsserver.js')],
] as const) {
  test(`${name}: tag errors as you type, quick info on a tag, attribute completions`, async (t) => {
    const { dir, file } = project();
    const server = new TsServer(tsserver);
    try {
      server.notify('open', { file, fileContent: SOURCE, projectRootPath: dir });
      const diagnostics = await server.request('semanticDiagnosticsSync', { file });
      t.true(diagnostics.success, JSON.stringify(diagnostics));
      const errors = diagnostics.body as { code: number; start: { line: number; offset: number }; text: string }[];
      const unknown = errors.find((error) => error.code === 93010);
      t.truthy(unknown, JSON.stringify(errors));
      t.deepEqual(unknown?.start, where('bussinessFlag'));
      t.regex(unknown?.text ?? '', /unknown attribute bussinessFlag; did you mean businessFlag\?/);

      const info = await server.request('quickinfo', { file, ...where('@redisLock businessFlag=payOrder', 3) });
      t.true(info.success, JSON.stringify(info));
      const { displayString, documentation } = info.body as { displayString: string; documentation: string };
      t.is(displayString, '@redisLock — Payments.pay');
      t.regex(documentation, /Locks ED_payOrder_<orderNo> on Redis\./);
      t.regex(documentation, /lockTime=10000/);
      t.regex(documentation, /try \{ …the body… \} finally \{ await lease\.release\(\); \}/);

      const completions = await server.request('completionInfo', {
        file,
        ...where('businessFlag=ship  ', 'businessFlag=ship '.length),
      });
      t.true(completions.success, JSON.stringify(completions));
      const names = (completions.body as { entries: { name: string }[] }).entries.map((entry) => entry.name);
      for (const attribute of ['keyName', 'lockTime', 'retries', 'onFail', 'signal'])
        t.true(names.includes(attribute), attribute);
      t.false(names.includes('businessFlag'), 'an attribute the tag has is not offered again');
    } finally {
      server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
