// parse/: where the tags are. The exact tag `@redisLock` as a whole word; every spelling of it (for
// the error about a tag the compiler would ignore); and the declarations the tags attach to.
import test from 'ava';
import type * as ts from 'typescript';
import {
  anyWithin,
  findTaggedDeclarations,
  mayHoldTag,
  isExactTag,
  tagMentions,
} from '../../../transformer/parse/find-tags';
import { jsDocView } from '../../../transformer/parse/jsdoc-view';
import { parsedFile, tsApi } from '../../helpers/in-memory-program';

test('the exact tag among tagMentions (any letter case, near misses that start a word) by isExactTag', (t) => {
  const text =
    '/** @redisLock a=b */ /** @RedisLock a=b */ /** @redisLockX a=b */ /** @redislock */ /** @redis-lock @redis_lock ops@redis-lock.example */';
  t.deepEqual(
    tagMentions(text).filter((at) => isExactTag(text, at)),
    [text.indexOf('@redisLock ')],
  );
  t.deepEqual(tagMentions(text), [
    text.indexOf('@redisLock '),
    text.indexOf('@RedisLock'),
    text.indexOf('@redisLockX'),
    text.lastIndexOf('@redislock'),
    text.indexOf('@redis-lock'),
    text.indexOf('@redis_lock'),
  ]);
  t.true(mayHoldTag('x @REDISLOCK y'));
  t.true(mayHoldTag('x @redis-lock y'));
  t.false(mayHoldTag('export const redisLock = 1;'));
});

test('anyWithin: a sorted position inside [start, end)', (t) => {
  t.true(anyWithin([3, 10, 20], 10, 11));
  t.false(anyWithin([3, 10, 20], 11, 20));
  t.false(anyWithin([], 0, 100));
});

test('the declarations a tag attaches to, in tree order, each with its own last JSDoc block', (t) => {
  const text = [
    'export class Svc {',
    '  /** @redisLock businessFlag=pay keyName=id */',
    '  async pay(id: string): Promise<void> { void id; }',
    '  /** Not this one. */',
    '  async other(): Promise<void> {}',
    '}',
    '/** @redisLock businessFlag=ship keyName=id */',
    'export async function ship(id: string): Promise<void> { void id; }',
    'const s = "/** @redisLock businessFlag=no keyName=id */";',
  ].join('\n');
  const file = parsedFile(text);
  const found = findTaggedDeclarations(
    tsApi,
    file,
    tagMentions(text).filter((at) => isExactTag(text, at)),
    jsDocView(tsApi, file, tagMentions(text)),
  );
  t.deepEqual(
    found.map((f) => (f.host as ts.FunctionLikeDeclaration).name?.getText(file)),
    ['pay', 'ship'],
  );
  t.true(found.every((f) => f.tag.tagName.text === 'redisLock' && f.block.tags?.includes(f.tag)));
});
