// Tag attributes → a TagModel: which key, which options. Syntax and value checks only; what the
// names refer to (parameters, properties, classes) is checked against types in key-path.ts and
// on-fail-class.ts.
import { KINDS } from '../../runtime/base/option-kinds';
import { OPTION_NAMES, OPTION_TABLE } from '../../runtime/base/option-table';
import type { LockOptions } from '../../runtime/base/options';
import { Code, fail, type Span } from '../diagnostics';
import type { Attribute, TagText } from '../parse/tag-text';
import { didYouMean } from './suggest';
import { IDENTIFIER, readBusinessFlag, readKeyType, type KeyType, type Result } from './values';

export { OPTION_NAMES };

export interface KeyPathText {
  readonly segments: readonly string[];
  readonly span: Span;
}

export interface TagModel {
  readonly businessFlag: string;
  readonly keyPaths: readonly KeyPathText[];
  /**
   * keyNames: each path is a lock of its own (several keys, taken all or nothing in one global order),
   * or one path names a list whose every element is; keyName's paths make one composite key.
   */
  readonly separateKeys: boolean;
  readonly keyType?: { value: KeyType; span: Span };
  readonly fieldName?: { value: string; span: Span };
  readonly onFailClass?: { name: string; span: Span };
  /** signal=<path>: the AbortSignal that cancels the call's wait (key-path.ts resolveSignal). */
  readonly signalPath?: KeyPathText;
  /** The options the tag sets, as LockOptions names them; the others are left out. */
  readonly options: Partial<LockOptions>;
  readonly tagSpan: Span;
}

/** The lock options (runtime/base/option-table.ts, which the plugin's `defaults` read too) follow the key's. */
export const ATTRIBUTES = [
  'businessFlag',
  'keyName',
  'keyNames',
  'keyType',
  'fieldName',
  'signal',
  ...OPTION_NAMES,
] as const;

export function readTagModel(tag: TagText): TagModel {
  const byName = new Map<string, Attribute>();
  for (const attribute of tag.attributes) {
    if (!(ATTRIBUTES as readonly string[]).includes(attribute.name)) {
      fail(
        Code.UnknownAttribute,
        `unknown attribute ${attribute.name}; ${didYouMean(attribute.name, ATTRIBUTES)}`,
        attribute.nameSpan,
      );
    }
    if (byName.has(attribute.name)) {
      fail(Code.RepeatedAttribute, `${attribute.name} is given twice; keep one`, attribute.nameSpan);
    }
    byName.set(attribute.name, attribute);
  }
  const required = (name: string): Attribute =>
    byName.get(name) ??
    fail(
      Code.MissingAttribute,
      `${name} is required, e.g. /** @redisLock businessFlag=payOrder keyName=orderNo */`,
      tag.tagSpan,
    );
  const value = <T>(attribute: Attribute, result: Result<T>): T =>
    result.ok ? result.value : fail(Code.MalformedValue, `${attribute.name}: ${result.problem}`, attribute.valueSpan);

  const businessFlag = required('businessFlag');
  // Without keyName the lock is the business's own, one key for every call (a scheduled job's).
  // keyType and fieldName say how to read keyName: alone they mean a keyName was forgotten.
  const keyNames = byName.get('keyNames');
  if (keyNames && byName.has('keyName'))
    fail(
      Code.RepeatedAttribute,
      'keyName (one key, composite when it names several paths) and keyNames (a lock for each) cannot both be given; keep one',
      keyNames.nameSpan,
    );
  for (const reader of ['keyType', 'fieldName'])
    if (keyNames && byName.has(reader))
      fail(
        Code.FieldNameUnexpected,
        `keyNames takes dotted paths only; write each key as a path (keyNames=from.id,to.id) and remove ${reader}`,
        byName.get(reader)!.nameSpan,
      );
  const keyName = byName.get('keyName') ?? keyNames;
  const keyType = byName.get('keyType');
  const fieldName = byName.get('fieldName');
  const keyReader = keyType ?? fieldName;
  if (!keyName && keyReader)
    fail(
      Code.MissingAttribute,
      `${keyReader.name} says how to read keyName, and there is none: add keyName=<parameter>, or remove ${keyReader.name} for one lock per businessFlag`,
      keyReader.nameSpan,
    );
  const options: Record<string, unknown> = {};
  let onFailClass: Attribute | undefined;
  for (const name of OPTION_NAMES) {
    const attribute = byName.get(name);
    if (!attribute) continue;
    const { kind, example } = OPTION_TABLE[name];
    const read: Result<unknown> = KINDS[kind].read(attribute.value, example);
    // onFail is throw or skip, or else the name of a class (checked below and in on-fail-class.ts).
    if (kind === 'onFail' && !read.ok) onFailClass = attribute;
    else options[name] = value(attribute, read);
  }
  return {
    businessFlag: value(businessFlag, readBusinessFlag(businessFlag.value)),
    keyPaths: keyName ? readKeyPaths(keyName) : [],
    separateKeys: keyNames !== undefined,
    signalPath: byName.has('signal') ? readSignalPath(byName.get('signal')!) : undefined,
    keyType: keyType && { value: value(keyType, readKeyType(keyType.value)), span: keyType.valueSpan },
    fieldName: fieldName && { value: readFieldName(fieldName), span: fieldName.valueSpan },
    onFailClass: onFailClass && { name: readClassName(onFailClass), span: onFailClass.valueSpan },
    options: options as Partial<LockOptions>,
    tagSpan: tag.tagSpan,
  };
}

/** `signal=options.signal`: one path, read as a key's is. */
function readSignalPath(attribute: Attribute): KeyPathText {
  const paths = readKeyPaths(attribute);
  if (paths.length !== 1)
    fail(
      Code.NotAPath,
      'signal names one parameter or dotted path holding an AbortSignal, e.g. signal=options.signal',
      attribute.valueSpan,
    );
  return paths[0];
}

/** `order.userNo,order.orderNo` → [[order, userNo], [order, orderNo]], each with its own span. */
function readKeyPaths(attribute: Attribute): KeyPathText[] {
  const paths: KeyPathText[] = [];
  const offset = attribute.valueSpan.start + (attribute.quoted ? 1 : 0);
  let at = 0;
  for (const part of attribute.value.split(',')) {
    const lead = part.length - part.trimStart().length;
    const text = part.trim();
    const span: Span = { file: attribute.valueSpan.file, start: offset + at + lead, length: Math.max(1, text.length) };
    const segments = text.split('.');
    if (!segments.every((segment) => IDENTIFIER.test(segment))) {
      fail(
        Code.NotAPath,
        `${attribute.name} "${text}" is not a parameter name or a dotted path like order.orderNo; tag text never becomes code`,
        span,
      );
    }
    paths.push({ segments, span });
    at += part.length + 1;
  }
  return paths;
}

function readFieldName(attribute: Attribute): string {
  // A quoted fieldName may be any property name (it only ever becomes a string literal); a bare
  // one must look like a name so that a typo such as `fieldName=order.no` is caught here.
  if (attribute.value === '' || (!attribute.quoted && !IDENTIFIER.test(attribute.value))) {
    fail(
      Code.NotAPath,
      `fieldName "${attribute.value}" is not a field name; write fieldName=orderNo, or quote a name that is not an identifier`,
      attribute.valueSpan,
    );
  }
  return attribute.value;
}

function readClassName(attribute: Attribute): string {
  if (!IDENTIFIER.test(attribute.value)) {
    fail(
      Code.NotAPath,
      `onFail "${attribute.value}" is not throw, skip or the name of a class in scope`,
      attribute.valueSpan,
    );
  }
  return attribute.value;
}
