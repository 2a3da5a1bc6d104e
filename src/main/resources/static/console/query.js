// The query box: a point lookup on an index, a peek (the JSON body of POST /v1/peek), and SQL once the
// server has POST /v1/sql; "watch" streams an index's changes once the server has
// GET /v1/indexes/{name}/changes. Results show as a table with the read's as_of, path and runtime.
import { el, table, replace, datum, millisTime, duration } from './dom.js';

/** The body of POST /v1/sql for a statement: the one place that knows the SQL endpoint's request shape. */
export function sqlRequest(text) {
  return { sql: text };
}

/** The path of an index's change stream (Server-Sent Events). */
export function changesPath(index) {
  return `/v1/indexes/${encodeURIComponent(index)}/changes`;
}

export class QueryView {
  constructor(root, api) {
    this.api = api;
    this.root = root;
    this.mode = 'lookup';
    this.meta = root.querySelector('#result-meta');
    this.result = root.querySelector('#result');
    this.indexSelect = root.querySelector('#lookup-index');
    this.keyInput = root.querySelector('#lookup-key');
    this.isolation = root.querySelector('#lookup-isolation');
    this.peekText = root.querySelector('#peek-body');
    this.sqlText = root.querySelector('#sql-text');
    this.watchButton = root.querySelector('#watch');
    this.watching = null;
    root.querySelectorAll('[data-mode]').forEach(b => b.addEventListener('click', () => this.setMode(b.dataset.mode)));
    root.querySelector('#query-form').addEventListener('submit', e => {
      e.preventDefault();
      this.run();
    });
    this.watchButton.addEventListener('click', () => this.toggleWatch());
    this.setMode('lookup');
  }

  /** Shows SQL mode and the watch button only when the server offers them. */
  setFeatures({ sql, watch }) {
    this.root.querySelector('[data-mode=sql]').hidden = !sql;
    this.watchButton.hidden = !watch;
    if (!sql && this.mode === 'sql') {
      this.setMode('lookup');
    }
  }

  setMode(mode) {
    this.mode = mode;
    this.root.querySelectorAll('[data-mode]').forEach(b => b.classList.toggle('active', b.dataset.mode === mode));
    this.root.querySelectorAll('[data-pane]').forEach(p => { p.hidden = p.dataset.pane !== mode; });
  }

  /** Keeps the index choices in step with the catalog, and offers an example peek of the first index. */
  render(model) {
    const names = model.indexes.map(i => i.name);
    if (names.join() !== [...this.indexSelect.options].map(o => o.value).join()) {
      const selected = this.indexSelect.value;
      replace(this.indexSelect, names.map(n => el('option', { value: n, selected: n === selected }, n)));
    }
    if (!this.peekText.value && names.length > 0) {
      this.peekText.value = JSON.stringify({ from: names[0], limit: 20 }, null, 2);
    }
  }

  async run() {
    const started = performance.now();
    replace(this.meta, 'running…');
    try {
      let answer;
      if (this.mode === 'lookup') {
        const params = new URLSearchParams();
        this.keyInput.value.split(',').map(k => k.trim()).filter(k => k).forEach(k => params.append('key', k));
        params.set('isolation', this.isolation.value);
        answer = await this.api.get(`/v1/indexes/${encodeURIComponent(this.indexSelect.value)}/rows?${params}`);
      } else if (this.mode === 'peek') {
        answer = await this.api.post('/v1/peek', this.peekText.value);
      } else {
        answer = await this.api.post('/v1/sql', sqlRequest(this.sqlText.value));
      }
      this.show(answer, performance.now() - started);
    } catch (e) {
      replace(this.meta, el('span', { class: 'bad' }, `${e.status ?? ''} ${e.problem?.title ?? 'Error'}: ${e.message}`));
      replace(this.result);
    }
  }

  show(answer, elapsed) {
    const read = Array.isArray(answer) ? answer[answer.length - 1] : answer;
    replace(this.meta,
      field('rows', read.rows?.length ?? 0), field('as_of', millisTime(read.as_of)), field('path', read.path),
      field('runtime', read.runtime), field('lag', duration(read.lag_ms)), field('hydrated', String(read.hydrated)),
      field('answered in', duration(elapsed)));
    if (Array.isArray(read.columns) && Array.isArray(read.rows)) {
      replace(this.result, table(read.columns, read.rows.map(r => r.map(datum)), { class: 'grid', id: 'result-table' }));
    } else {
      replace(this.result, el('pre', {}, JSON.stringify(answer, null, 2)));
    }
  }

  /** Starts or stops streaming the changes of the chosen index into the result area. */
  toggleWatch() {
    if (this.watching) {
      this.watching.abort();
      return;
    }
    const index = this.indexSelect.value;
    const events = [];
    const body = el('tbody');
    replace(this.meta, field('watching', index));
    replace(this.result, el('table', { class: 'grid', id: 'watch-table' },
      el('thead', {}, el('tr', {}, el('th', {}, 'received'), el('th', {}, 'event'), el('th', {}, 'data'))), body));
    this.watchButton.textContent = 'Stop watching';
    this.watching = this.api.stream(changesPath(index), event => {
      events.push(event);
      body.prepend(el('tr', {}, el('td', {}, new Date().toISOString().slice(11, 23)), el('td', {}, event.event),
        el('td', {}, el('code', {}, typeof event.data === 'string' ? event.data : JSON.stringify(event.data)))));
      while (body.children.length > 500) {
        body.lastChild.remove();
      }
    }, error => {
      this.watching = null;
      this.watchButton.textContent = 'Watch';
      this.meta.append(field('stopped', error ? error.message : `after ${events.length} events`));
    });
  }
}

function field(name, value) {
  return el('span', { class: 'field', 'data-field': name }, el('span', { class: 'field-name' }, name), ' ', el('span', { class: 'field-value' }, value));
}
