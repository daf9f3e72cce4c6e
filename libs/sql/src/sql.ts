/**
 * SQL written as a tagged template that numbers its own placeholders (decision 280): every
 * interpolation is a parameter unless it is itself SQL (`sql`, `raw`, `ident`, `join`), which is
 * spliced in with its parameters renumbered. A statement is built from fragments owned by whoever
 * owns the table (an outbox CTE, an inbox CTE, a queue's finish) without anyone counting `$n`
 * across files. The text depends only on the fragments' shape, never on the values, so a
 * statement run as a named prepared statement (`preparedQuery`) is prepared once per shape.
 */

/** A value numbered once however often it is interpolated (`$n` each time): see `param`. */
export class Param {
  constructor(readonly value: unknown) {}
}

export class Sql {
  /** `strings[i]` comes before `args[i]`; there is always one string more than args. */
  readonly strings: readonly string[];
  /** Values and shared `Param`s, never `Sql`: nested fragments are flattened when built. */
  readonly args: readonly unknown[];
  private compiled?: { text: string; values: unknown[] };

  constructor(strings: readonly string[], args: readonly unknown[]) {
    if (strings.length !== args.length + 1) throw new Error('Sql: expected one string more than values');
    const s: string[] = [strings[0]];
    const a: unknown[] = [];
    args.forEach((arg, i) => {
      if (arg instanceof Sql) {
        s[s.length - 1] += arg.strings[0];
        for (let j = 0; j < arg.args.length; j++) {
          a.push(arg.args[j]);
          s.push(arg.strings[j + 1]);
        }
        s[s.length - 1] += strings[i + 1];
      } else {
        a.push(arg);
        s.push(strings[i + 1]);
      }
    });
    this.strings = s;
    this.args = a;
  }

  /** The text with `$1`, `$2`… and the values in that order (a `Param` keeps one number). */
  toQuery(): { text: string; values: unknown[] } {
    if (this.compiled) return this.compiled;
    const values: unknown[] = [];
    const shared = new Map<Param, number>();
    let text = this.strings[0];
    this.args.forEach((arg, i) => {
      let n: number | undefined;
      if (arg instanceof Param) {
        n = shared.get(arg);
        if (n === undefined) shared.set(arg, (n = values.push(arg.value)));
      } else n = values.push(arg);
      text += `$${n}${this.strings[i + 1]}`;
    });
    return (this.compiled = { text, values });
  }

  get text(): string {
    return this.toQuery().text;
  }

  get values(): unknown[] {
    return this.toQuery().values;
  }
}

/** A fragment or statement: `${x}` is a parameter, unless `x` is SQL already. */
export function sql(strings: TemplateStringsArray, ...args: unknown[]): Sql {
  return new Sql(strings, args);
}

/** Trusted text spliced in as it is: never a value from outside (use a parameter or `ident`). */
export function raw(text: string): Sql {
  return new Sql([text], []);
}

/** A quoted identifier, or a qualified one from several parts: `ident('orders', 'orders')` → `"orders"."orders"`. */
export function ident(...names: string[]): Sql {
  if (names.length === 0) throw new Error('ident() needs at least one name');
  for (const name of names)
    if (name.length === 0 || name.includes('\0')) throw new Error(`ident(): ${JSON.stringify(name)} is not a name`);
  return raw(names.map((name) => `"${name.replace(/"/g, '""')}"`).join('.'));
}

/** Fragments one after another, with `separator` (trusted text) between them. */
export function join(parts: readonly Sql[], separator = ', '): Sql {
  if (parts.length === 0) return empty;
  return new Sql(['', ...Array<string>(parts.length - 1).fill(separator), ''], parts);
}

/** A value to interpolate several times as one parameter: `const at = param(now)`; `${at}` … `${at}`. */
export function param(value: unknown): Param {
  return new Param(value);
}

export const empty: Sql = raw('');
