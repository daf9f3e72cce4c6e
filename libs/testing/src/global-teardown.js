// Prints how much of each OpenAPI document the run's answers exercised: the operations and the
// (operation, status) pairs that http() checked against the documents (openapi-answers.ts).
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const path = require('node:path');

const DIR = path.resolve(__dirname, '../../../.run/openapi-coverage');

module.exports = async function globalTeardown() {
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
};
