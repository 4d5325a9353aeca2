// keyName (and fieldName/keyType) resolved against real types: the first segment is a
// parameter, each further one a property of the previous type, and the key at the end a
// string, number, bigint or boolean. The result names checked names only; the weaver builds the
// key expression from it, never from tag text.
//
// Where no type is known — no checker (a route that weaves one file without its program), or a
// type that is `any` (an import ts-node's transpile-only mode could not resolve) — the path is
// read as written and a field is read by `readField`, which decides at run time exactly as the
// checker would at compile time (Map entry, JSON text, property). So every route locks the same
// key; a missing value is a LockKeyError at run time, never a lock on a wrong key.
import type * as ts from 'typescript';
import { Code, fail, type Span } from '../diagnostics';
import type { KeyPathText, TagModel } from './attributes';
import { didYouMean } from './suggest';
import type { KeyType } from './values';

/** How the value at the end of the path is read. */
export type FieldRead =
  | { kind: 'none' } // keyType VALUE: the value itself
  | { kind: 'property'; name: string } // CLASS, or JSON on a plain object: x?.name / x?.["name"]
  | { kind: 'map-get'; name: string } // JSON on a Map: x?.get("name")
  | { kind: 'json-text'; name: string } // JSON on a string: readJsonField(x, "name")
  | { kind: 'at-run-time'; name: string }; // type unknown: readField(x, "name")

export interface KeyAccess {
  readonly parameter: string;
  /** Property names after the parameter, each taken from the resolved property symbol. */
  readonly properties: readonly string[];
  readonly field: FieldRead;
}

export function resolveKeys(
  tsApi: typeof ts,
  checker: ts.TypeChecker | undefined,
  method: ts.SignatureDeclaration,
  model: TagModel,
): KeyAccess[] {
  const keyType = model.keyType?.value;
  if (model.fieldName && keyType === 'VALUE') {
    fail(
      Code.FieldNameUnexpected,
      'fieldName goes with keyType=CLASS or keyType=JSON; remove fieldName or change keyType',
      model.fieldName.span,
    );
  }
  if (model.fieldName && model.keyPaths.length > 1) {
    fail(
      Code.FieldNameUnexpected,
      'a composite key cannot take fieldName; write each part as a dotted path: keyName=order.userNo,order.orderNo',
      model.fieldName.span,
    );
  }
  if ((keyType === 'CLASS' || keyType === 'JSON') && !model.fieldName) {
    fail(
      Code.FieldNameRequired,
      `keyType=${keyType} needs fieldName, the field read for the key: add fieldName=<name>`,
      model.keyType!.span,
    );
  }
  // keyNames with one path: a list, each element a lock of its own.
  const list = model.separateKeys && model.keyPaths.length === 1;
  return model.keyPaths.map((path) => resolveKey(tsApi, checker, method, path, model, keyType, list));
}

function resolveKey(
  tsApi: typeof ts,
  checker: ts.TypeChecker | undefined,
  method: ts.SignatureDeclaration,
  path: KeyPathText,
  model: TagModel,
  keyType: KeyType | undefined,
  list: boolean,
): KeyAccess {
  const { parameter, properties, type } = walkPath(tsApi, checker, method, path);
  const first = path.segments[0];
  const name = path.segments.join('.');
  const known = checker && type && !isUnknown(tsApi, type) ? type : undefined;
  if (!model.fieldName) {
    if (known && list) checkList(tsApi, checker!, known, name, path.span);
    else if (known) checkScalar(tsApi, checker!, known, name, path.span, true);
    return { parameter: first, properties, field: { kind: 'none' } };
  }
  const field: FieldRead = known
    ? resolveField(tsApi, checker!, known, name, model.fieldName, keyType, parameter)
    : keyType === 'CLASS'
      ? { kind: 'property', name: model.fieldName.value }
      : { kind: 'at-run-time', name: model.fieldName.value };
  return { parameter: first, properties, field };
}

/**
 * The tag's `signal=` path (an AbortSignal that cancels the wait), resolved as a key's path is: a
 * parameter, then properties of its type; the value must be an AbortSignal, or undefined. Without
 * types it is read as written, and the runtime refuses a value that is no signal.
 */
export function resolveSignal(
  tsApi: typeof ts,
  checker: ts.TypeChecker | undefined,
  method: ts.SignatureDeclaration,
  path: KeyPathText,
): KeyAccess {
  const { properties, type } = walkPath(tsApi, checker, method, path);
  if (checker && type && !isUnknown(tsApi, type) && !isAbortSignal(tsApi, checker, type)) {
    fail(
      Code.SignalType,
      `signal=${path.segments.join('.')} has type ${checker.typeToString(type)}; it must be an AbortSignal (or AbortSignal | undefined)`,
      path.span,
    );
  }
  return { parameter: path.segments[0], properties, field: { kind: 'none' } };
}

/** AbortSignal, possibly with null or undefined: each other member is the global AbortSignal, or a type shaped as one. */
function isAbortSignal(tsApi: typeof ts, checker: ts.TypeChecker, type: ts.Type): boolean {
  const F = tsApi.TypeFlags;
  const members = (type.isUnion() ? type.types : [type]).filter((m) => !(m.flags & (F.Null | F.Undefined | F.Void)));
  const shaped = (member: ts.Type) =>
    ['aborted', 'reason', 'addEventListener', 'removeEventListener', 'throwIfAborted'].every((name) =>
      checker.getPropertyOfType(member, name),
    );
  return (
    members.length > 0 && members.every((member) => member.getSymbol()?.getName() === 'AbortSignal' || shaped(member))
  );
}

/** A path's parameter, its properties as the resolved symbols name them, and the type at its end (undefined where unknown). */
function walkPath(
  tsApi: typeof ts,
  checker: ts.TypeChecker | undefined,
  method: ts.SignatureDeclaration,
  path: KeyPathText,
): { parameter: ts.ParameterDeclaration; properties: string[]; type: ts.Type | undefined } {
  const [first, ...rest] = path.segments;
  const parameter = findParameter(tsApi, method, first, segmentSpan(path, 0));
  let type = checker?.getTypeAtLocation(parameter);
  const properties: string[] = [];
  rest.forEach((segment, index) => {
    if (!checker || !type || isUnknown(tsApi, type)) {
      type = undefined;
      properties.push(segment);
      return;
    }
    const holder = checker.getNonNullableType(type);
    const property = checker.getPropertyOfType(holder, segment);
    if (!property) {
      const known = checker
        .getPropertiesOfType(holder)
        .map((p) => p.getName())
        .filter((n) => !n.startsWith('__'));
      fail(
        Code.UnknownProperty,
        `${segment} is not a property of ${path.segments.slice(0, index + 1).join('.')} (type ${checker.typeToString(holder)}); ${known.length ? didYouMean(segment, known) : 'that type has no properties'}`,
        segmentSpan(path, index + 1),
      );
    }
    properties.push(property.getName());
    type = checker.getTypeOfSymbolAtLocation(property, parameter);
  });
  return { parameter, properties, type };
}

/** `any` (also what an unresolved import becomes): the type says nothing, so the run time decides. */
function isUnknown(tsApi: typeof ts, type: ts.Type): boolean {
  return (type.flags & tsApi.TypeFlags.Any) !== 0;
}

function findParameter(
  tsApi: typeof ts,
  method: ts.SignatureDeclaration,
  name: string,
  span: Span,
): ts.ParameterDeclaration {
  const parameter = method.parameters.find((p) => tsApi.isIdentifier(p.name) && p.name.text === name);
  if (parameter) return parameter;
  if (method.parameters.some((p) => !tsApi.isIdentifier(p.name) && bindsName(tsApi, p.name, name))) {
    fail(
      Code.DestructuredParameter,
      `${name} is bound by a destructured parameter, which keyName cannot name; take the object as one named parameter (order: Order) and write keyName=order.${name}`,
      span,
    );
  }
  const names = method.parameters.filter((p) => tsApi.isIdentifier(p.name)).map((p) => (p.name as ts.Identifier).text);
  fail(
    Code.UnknownParameter,
    `keyName ${name} is not a parameter of this method; ${names.length ? `its parameters are: ${names.join(', ')}${didYouMean(name, names).startsWith('did') ? ` (${didYouMean(name, names)})` : ''}` : 'it has no named parameters'}`,
    span,
  );
}

function bindsName(tsApi: typeof ts, pattern: ts.BindingName, name: string): boolean {
  if (tsApi.isIdentifier(pattern)) return pattern.text === name;
  return pattern.elements.some(
    (element) => !tsApi.isOmittedExpression(element) && bindsName(tsApi, element.name, name),
  );
}

function resolveField(
  tsApi: typeof ts,
  checker: ts.TypeChecker,
  type: ts.Type,
  name: string,
  fieldName: { value: string; span: Span },
  keyType: KeyType | undefined,
  location: ts.Node,
): FieldRead {
  const holder = checker.getNonNullableType(type);
  const field = fieldName.value;
  const typeName = checker.typeToString(holder);
  if (isMap(holder)) {
    if (keyType === 'CLASS')
      fail(
        Code.KeyType,
        `${name} is a ${typeName}, whose entries are not properties; use keyType=JSON to read entry "${field}"`,
        fieldName.span,
      );
    const valueType = checker.getTypeArguments(holder as ts.TypeReference)[1];
    if (valueType) checkScalar(tsApi, checker, valueType, `${name}.get("${field}")`, fieldName.span, false);
    return { kind: 'map-get', name: field };
  }
  if (holder.flags & tsApi.TypeFlags.StringLike) {
    if (keyType === 'CLASS')
      fail(
        Code.KeyType,
        `${name} is a string, which has no fields; use keyType=JSON to read "${field}" from its JSON text`,
        fieldName.span,
      );
    return { kind: 'json-text', name: field };
  }
  if (!(holder.flags & tsApi.TypeFlags.Object) && !holder.isIntersection()) {
    fail(
      Code.KeyType,
      `${name} has type ${typeName}, which has no field ${field}; fieldName reads a field of an object, a Map or a JSON string`,
      fieldName.span,
    );
  }
  const property = checker.getPropertyOfType(holder, field);
  if (property) {
    checkScalar(
      tsApi,
      checker,
      checker.getTypeOfSymbolAtLocation(property, location),
      `${name}.${field}`,
      fieldName.span,
      false,
    );
    return { kind: 'property', name: property.getName() };
  }
  const indexType = keyType === 'JSON' ? checker.getIndexTypeOfType(holder, tsApi.IndexKind.String) : undefined;
  if (!indexType) {
    const known = checker.getPropertiesOfType(holder).map((p) => p.getName());
    fail(
      Code.UnknownProperty,
      `${field} is not a property of ${name} (type ${typeName}); ${known.length ? didYouMean(field, known) : 'that type has no properties'}`,
      fieldName.span,
    );
  }
  checkScalar(tsApi, checker, indexType, `${name}["${field}"]`, fieldName.span, false);
  return { kind: 'property', name: field };
}

/** Map and ReadonlyMap (strip null first): read with .get(). */
function isMap(type: ts.Type): boolean {
  const name = type.getSymbol()?.getName();
  return name === 'Map' || name === 'ReadonlyMap';
}

/**
 * A key must be a string, number, bigint or boolean (literals, enums and unions of them too,
 * possibly with null/undefined: the runtime rejects a null value with LockKeyError). For a
 * value read from a Map or index signature, `unknown`/`any` is accepted: its static type says
 * nothing and the runtime checks the value.
 */
function checkScalar(
  tsApi: typeof ts,
  checker: ts.TypeChecker,
  type: ts.Type,
  name: string,
  span: Span,
  isWholeKey: boolean,
): void {
  const F = tsApi.TypeFlags;
  const scalar = F.StringLike | F.NumberLike | F.BigIntLike | F.BooleanLike;
  const nullish = F.Null | F.Undefined | F.Void;
  if (!isWholeKey && type.flags & (F.Any | F.Unknown)) return;
  const members = type.isUnion() ? type.types : [type];
  const ok = members.every((m) => m.flags & (scalar | nullish)) && members.some((m) => m.flags & scalar);
  if (ok) return;
  const typeName = checker.typeToString(type);
  const stripped = checker.getNonNullableType(type);
  if (isWholeKey && stripped.flags & F.Object) {
    const fields = checker
      .getPropertiesOfType(stripped)
      .filter((p) => {
        const t = checker.getTypeOfSymbol(p);
        return t.flags & scalar;
      })
      .map((p) => p.getName());
    const example = fields[0] ?? 'id';
    fail(
      Code.KeyType,
      `the key ${name} is an object (${typeName}); name its field: keyName=${name}.${example}, or keyType=CLASS fieldName=${example}${fields.length ? ` (its scalar fields: ${fields.slice(0, 8).join(', ')})` : ''}`,
      span,
    );
  }
  fail(Code.KeyType, `the key ${name} has type ${typeName}; a key must be a string, number, bigint or boolean`, span);
}

/** keyNames=<one path>: an array or tuple (readonly too) whose elements are keys. */
function checkList(tsApi: typeof ts, checker: ts.TypeChecker, type: ts.Type, name: string, span: Span): void {
  const list = checker.getNonNullableType(type);
  if (!checker.isArrayType(list) && !checker.isTupleType(list))
    fail(
      Code.KeyType,
      `keyNames=${name} names one path, so it locks each element of a list, and ${name} has type ${checker.typeToString(type)}; for one key write keyName=${name}, for several keyNames=a,b`,
      span,
    );
  const element = checker.getIndexTypeOfType(list, tsApi.IndexKind.Number);
  if (element) checkScalar(tsApi, checker, element, `${name}[i]`, span, true);
}

function segmentSpan(path: KeyPathText, index: number): Span {
  const before = path.segments.slice(0, index).reduce((n, s) => n + s.length + 1, 0);
  return { file: path.span.file, start: path.span.start + before, length: path.segments[index].length };
}
