// Prints how much of each OpenAPI document the run's answers exercised: the operations and the
// (operation, status) pairs that http() checked against the documents (openapi-answers.ts); and how
// many messages read from topics were checked against docs/asyncapi.yaml (asyncapi-messages.ts).
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const path = require('node:path');
const { load } = require('js-yaml');

const DIR = path.resolve(__dirname, '../../../.run/openapi-coverage');
const ASYNCAPI_DIR = path.resolve(__dirname, '../../../.run/asyncapi-coverage');
const ASYNCAPI_DOCUMENT = path.resolve(__dirname, '../../../docs/asyncapi.yaml');

module.exports = async function globalTeardown() {
  printOpenApiCoverage();
  printAsyncApiCoverage();
};

function printAsyncApiCoverage() {
  if (!existsSync(ASYNCAPI_DIR)) return;
  const checked = readdirSync(ASYNCAPI_DIR)
    .flatMap((f) => readFileSync(path.join(ASYNCAPI_DIR, f), 'utf8').split('\n'))
    .filter(Boolean);
  if (checked.length === 0) return;
  const doc = load(readFileSync(ASYNCAPI_DOCUMENT, 'utf8'));
  const channels = Object.keys(doc.channels ?? {}).length;
  const messages = Object.values(doc.channels ?? {}).reduce((n, c) => n + Object.keys(c.messages ?? {}).length, 0);
  const seen = (i) =>
    new Set(
      checked.map((l) =>
        l
          .split('|')
          .slice(0, i + 1)
          .join('|'),
      ),
    ).size;
  console.log(
    `\nAsyncAPI: ${checked.length} messages read from topics checked against docs/asyncapi.yaml ` +
      `(${seen(0)} of ${channels} channels, ${seen(1)} of ${messages} documented messages)`,
  );
}

function printOpenApiCoverage() {
  if (!existsSync(DIR)) return;
  const lines = (prefix) =>
    readdirSync(DIR)
      .filter((f) => f.startsWith(prefix))
      .flatMap((f) => readFileSync(path.join(DIR, f), 'utf8').split('\n'))
      .filter(Boolean);
  const documented = new Set(lines('documented-'));
  const answered = new Set(lines('answered-').filter((l) => documented.has(l)));
  if (answered.size === 0) return;
  const services = [...new Set([...documented].map((l) => l.split('|')[0]))].sort();
  const out = ['', 'OpenAPI answers checked against the documents (operations; status codes per operation):'];
  for (const service of services) {
    const mine = (set) => [...set].filter((l) => l.startsWith(`${service}|`));
    const ops = (set) => new Set(mine(set).map((l) => l.split('|')[1]));
    out.push(
      `  ${service}: ${ops(answered).size} of ${ops(documented).size} operations, ` +
        `${mine(answered).length} of ${mine(documented).length} documented status codes`,
    );
  }
  console.log(out.join('\n'));
}
