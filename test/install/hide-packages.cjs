// Preloaded (`node --require`) into a child process: the packages named in LOCKWEAVE_HIDE
// (comma-separated) cannot be resolved, as in an install that does not have them. Every
// resolution goes through Module._resolveFilename: require, require.resolve and the ES module
// loader's CommonJS side. `import` of a bare name is refused too (through module.registerHooks
// where Node has it), so nothing reaches a hidden package past this hook.
'use strict';
const Module = require('node:module');

const names = (process.env.LOCKWEAVE_HIDE || '').split(',').filter(Boolean);
const hidden = (request) => names.some((name) => request === name || request.startsWith(`${name}/`));
const missing = (request) =>
  Object.assign(new Error(`Cannot find module '${request}' (hidden by the test)`), { code: 'MODULE_NOT_FOUND' });

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (hidden(request)) throw missing(request);
  return resolveFilename.call(this, request, ...rest);
};
if (typeof Module.registerHooks === 'function') {
  Module.registerHooks({
    resolve(specifier, context, nextResolve) {
      if (hidden(specifier)) throw missing(specifier);
      return nextResolve(specifier, context);
    },
  });
}
