// The fault suite's closing table: one row per scenario, as docs/faults.md shows it.
import { booksCells } from './books.mjs';

/**
 * @param {import('./faults.mjs').Result[]} results
 */
export function printTable(results) {
  console.log(
    '\n| scenario | acknowledged orders / payouts / P2P | refunds | refused for balance | acknowledged callbacks | lost | duplicated | out of order | books: postings lost / doubled | books: balances and invariants | recovery: first success | recovery: settled | every service answering | seconds |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|');
  for (const r of results) {
    const books = booksCells(r.books);
    console.log(
      `| ${r.name} | ${r.ok} | ${r.refunds ?? '–'} | ${r.refused ?? '–'} | ${r.callbacks} | ${r.lost} | ${r.duplicated} | ${r.misordered} | ${books.postings} | ${books.balances} | ${r.firstOk ?? '–'} | ${r.settledIn ?? '–'} | ${r.answering ?? '–'} | ${r.seconds ?? '–'} |`,
    );
  }
}
