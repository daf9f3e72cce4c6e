/**
 * HTML that escapes by default (decision 281): `markup\`<p>${text}</p>\`` escapes every
 * interpolation for element content and double-quoted attribute values, unless it is HTML
 * already — another `markup` fragment, or text a caller marked trusted with `raw` (a stylesheet, a
 * script, an SVG it made). A page cannot forget to escape: forgetting `raw` shows markup as text,
 * the safe way round. Arrays are joined, each item by the same rule; null, undefined and false
 * are nothing, so `${cond && markup\`…\`}` works. The tag is not called `html`: Prettier would reformat
 * the markup of a template tagged so, and the pages' bytes with it.
 */
export class Html {
  constructor(private readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

/** Text for HTML content and attribute values (double-quoted). */
export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function piece(value: unknown): string {
  if (value instanceof Html) return value.toString();
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(piece).join('');
  return escapeHtml(String(value));
}

export function markup(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += piece(values[i]) + strings[i + 1];
  return new Html(out);
}

/** Trusted markup, written into the page as it is: never text that came from outside. */
export function raw(markup: string): Html {
  return new Html(markup);
}

/** Fragments one after another, with `separator` (trusted markup) between them. */
export function joinMarkup(items: readonly Html[], separator = ''): Html {
  return new Html(items.map(String).join(separator));
}
