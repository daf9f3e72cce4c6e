// Lints an OpenAPI document with Redocly's recommended rules, every warning an error.
// Usage: node tools/openapi/lint.mjs <openapi.json>. Prints each problem and a "N errors, N warnings" line;
// exits 1 on any problem. A script rather than an import in jest because @redocly/openapi-core is ESM only.
import { createConfig, lint } from '@redocly/openapi-core';
import path from 'node:path';

const file = process.argv[2];
if (!file) {
  console.error('usage: node tools/openapi/lint.mjs <openapi.json>');
  process.exit(2);
}
const config = await createConfig({ extends: ['recommended'] });
const problems = await lint({ ref: path.resolve(file), config });
for (const p of problems) {
  const where = p.location.map((l) => l.pointer).join(', ');
  console.log(`${p.severity} ${p.ruleId}: ${p.message} at ${where}`);
}
const errors = problems.filter((p) => p.severity === 'error').length;
const warnings = problems.filter((p) => p.severity === 'warn').length;
console.log(`${errors} errors, ${warnings} warnings`);
process.exit(problems.length === 0 ? 0 : 1);
