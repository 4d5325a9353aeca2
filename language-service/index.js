// tsserver loads a plugin named "lockweave/language-service" by the old (node10) resolution, which
// does not read package.json "exports": this folder is where that resolution looks.
module.exports = require('../dist/transformer/editor/language-service.js');
