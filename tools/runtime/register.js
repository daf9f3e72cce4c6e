// Resolves the monorepo's `@payments/<lib>` imports to the compiled libraries under dist/, so the
// services run with plain `node` (no ts-node, no bundler): node -r ./tools/runtime/register.js dist/apps/<app>/src/main.js
const Module = require('node:module');
const path = require('node:path');

const root = process.env.PAYMENTS_ROOT || path.resolve(__dirname, '..', '..');
const original = Module._resolveFilename;
const PREFIX = '@payments/';

Module._resolveFilename = function resolve(request, ...rest) {
  if (request.startsWith(PREFIX)) {
    request = path.join(root, 'dist', 'libs', request.slice(PREFIX.length), 'src', 'index.js');
  }
  return original.call(this, request, ...rest);
};
