// Writes dist/transformer/weaver-hash.txt: a hash of the text of every file the weaver loads, which
// the woven-file cache keys its entries by (transformer/routes/woven-cache.ts). Two builds with the
// same version and files of the same sizes look alike to anything else an install leaves (npm gives
// every file one fixed time), and an entry woven by one must not be served to the other.
// `node scripts/write-weaver-hash.js [package dir]`: this repository's by default.
'use strict';
const path = require('node:path');

const packageDir = path.resolve(process.argv[2] ?? path.join(__dirname, '..'));
require(path.join(packageDir, 'dist', 'transformer', 'routes', 'woven-cache.js')).writeWeaverHash();
