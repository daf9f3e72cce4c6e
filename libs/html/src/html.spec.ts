import { escapeHtml, markup, raw } from './html';

describe('markup: a template that escapes unless told otherwise', () => {
  it('when text is interpolated, then every character that means something in HTML is escaped', () => {
    const name = `<script>alert("x")</script> & 'y'`;
    expect(markup`<p title="${name}">${name}</p>`.toString()).toBe(
      '<p title="&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#39;y&#39;">&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#39;y&#39;</p>',
    );
  });

  it('when a fragment is interpolated, then it is kept as markup and not escaped twice', () => {
    const inner = markup`<b>${'a&b'}</b>`;
    expect(markup`<p>${inner}</p>`.toString()).toBe('<p><b>a&#38;b</b></p>');
  });

  it('when markup is marked raw, then it is written as it is', () => {
    expect(markup`<style>${raw('a>b{color:red}')}</style>`.toString()).toBe('<style>a>b{color:red}</style>');
  });

  it('when a list is interpolated, then its items are joined, each escaped unless markup', () => {
    expect(markup`<ul>${['<1>', markup`<li>2</li>`]}</ul>`.toString()).toBe('<ul>&#60;1&#62;<li>2</li></ul>');
  });

  it('when nothing is interpolated (null, undefined, false), then nothing is written; 0 is written', () => {
    expect(markup`[${null}${undefined}${false}${0}]`.toString()).toBe('[0]');
  });

  it('when a string is escaped alone, then it is the same escaping', () => {
    expect(escapeHtml(`"<&>'`)).toBe('&#34;&#60;&#38;&#62;&#39;');
    expect(escapeHtml(42)).toBe('42');
  });
});
