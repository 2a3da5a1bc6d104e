// The query box: a point lookup on an index, a peek (the JSON body of POST /v1/peek), and SQL once the
// server has POST /v1/sql; "watch" follows a lookup's rows live through the index's change stream once the
// server has GET /v1/indexes/{name}/changes. Results show as a table with the read's as_of, path and runtime.
import { el, table, replace, datum, millisTime, duration } from './dom.js';

/** The most rows a watch keeps; a query with more is stopped (narrow it with keys). */
export const MAX_WATCH_ROWS = 10000;
/** The most rows of a watched result, and of its latest changes, drawn in the page. */
const SHOWN_ROWS = 500;
const SHOWN_CHANGES = 20;
/** A watched result is redrawn at most this often, however fast its changes come. */
const REDRAW_MS = 100;

/** The body of POST /v1/sql for a statement: the one place that knows the SQL endpoint's request shape. */
export function sqlRequest(text) {
  return { sql: text };
}

/** The path of an index's change stream (Server-Sent Events), for the given keys (all rows when there are none). */
export function changesPath(index, keys = []) {
  const params = new URLSearchParams();
  keys.forEach(k => params.append('key', k));
  const query = params.toString();
  return `/v1/indexes/${encodeURIComponent(index)}/changes${query ? `?${query}` : ''}`;
}

/** Orders data as a reader expects: NULL first, numbers by value, the rest by their text. */
function compareDatum(a, b) {
  if (a === b) {
    return 0;
  }
  if (a === null || a === undefined) {
    return -1;
  }
  if (b === null || b === undefined) {
    return 1;
  }
  if (typeof a === 'number' && typeof b === 'number') {
    return a - b;
  }
  const x = typeof a === 'string' ? a : JSON.stringify(a);
  const y = typeof b === 'string' ? b : JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function compareRows(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareDatum(a[i], b[i]);
    if (c !== 0) {
      return c;
    }
  }
  return a.length - b.length;
}

/**
 * A query's result kept up to date from its change stream: a multiset of rows to which each update
 * ([row, diff]) is applied. It refuses to grow past {@code maxRows} distinct rows.
 */
export class LiveResult {
  constructor(maxRows = MAX_WATCH_ROWS) {
    this.maxRows = maxRows;
    this.rows = new Map(); // the row as JSON -> {row, count}
  }

  /** Applies one timestamp's updates; false when the result would hold more than maxRows distinct rows. */
  apply(updates) {
    for (const [row, diff] of updates) {
      const k = JSON.stringify(row);
      const count = (this.rows.get(k)?.count ?? 0) + diff;
      if (count === 0) {
        this.rows.delete(k);
      } else {
        this.rows.set(k, { row, count });
      }
    }
    return this.rows.size <= this.maxRows;
  }

  /** The number of rows, counting each row as often as it occurs. */
  get size() {
    let n = 0;
    for (const { count } of this.rows.values()) {
      n += Math.max(0, count);
    }
    return n;
  }

  /** The first {@code limit} rows in order, each repeated as often as it occurs. */
  sorted(limit) {
    const out = [];
    for (const { row, count } of [...this.rows.values()].sort((a, b) => compareRows(a.row, b.row))) {
      for (let i = 0; i < count && out.length < limit; i++) {
        out.push(row);
      }
      if (out.length >= limit) {
        break;
      }
    }
    return out;
  }
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
    this.columnsOf = new Map(); // index name -> the column names of its rows
    this.features = { sql: false, watch: false };
    root.querySelectorAll('[data-mode]').forEach(b => b.addEventListener('click', () => this.setMode(b.dataset.mode)));
    root.querySelector('#query-form').addEventListener('submit', e => {
      e.preventDefault();
      this.run();
    });
    this.watchButton.addEventListener('click', () => this.toggleWatch());
    this.setMode('lookup');
  }

  /** Shows SQL mode and the watch button (of lookups) only when the server offers them. */
  setFeatures({ sql, watch }) {
    this.features = { sql, watch };
    this.root.querySelector('[data-mode=sql]').hidden = !sql;
    this.setMode(!sql && this.mode === 'sql' ? 'lookup' : this.mode);
  }

  setMode(mode) {
    this.mode = mode;
    this.root.querySelectorAll('[data-mode]').forEach(b => b.classList.toggle('active', b.dataset.mode === mode));
    this.root.querySelectorAll('[data-pane]').forEach(p => { p.hidden = p.dataset.pane !== mode; });
    this.watchButton.hidden = !this.watching && !(this.features.watch && mode === 'lookup');
  }

  /** Keeps the index choices in step with the catalog, and offers an example peek of the first index. */
  render(model) {
    const collections = new Map([...model.tables, ...model.views].map(c => [c.name, c.columns.map(col => col.name)]));
    this.columnsOf = new Map(model.indexes.map(i => [i.name, collections.get(i.on) ?? []]));
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
    this.stopWatching();
    const started = performance.now();
    replace(this.meta, 'running…');
    try {
      let answer;
      if (this.mode === 'lookup') {
        const params = new URLSearchParams();
        this.keys().forEach(k => params.append('key', k));
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

  /** The lookup's keys as typed: comma-separated values, none for all rows. */
  keys() {
    return this.keyInput.value.split(',').map(k => k.trim()).filter(k => k);
  }

  show(answer, elapsed) {
    const read = Array.isArray(answer) ? answer[answer.length - 1] : answer;
    replace(this.meta,
      field('rows', read.rows?.length ?? 0), field('as_of', millisTime(read.as_of)), field('path', read.path),
      field('runtime', read.runtime), field('since', millisTime(read.since)), field('upper', millisTime(read.upper)),
      field('lag', duration(read.lag_ms)), field('hydrated', String(read.hydrated)),
      field('answered in', duration(elapsed)));
    if (Array.isArray(read.columns) && Array.isArray(read.rows)) {
      replace(this.result, table(read.columns, read.rows.map(r => r.map(datum)), { class: 'grid', id: 'result-table' }));
    } else {
      replace(this.result, el('pre', {}, JSON.stringify(answer, null, 2)));
    }
  }

  /**
   * Starts or stops watching the lookup (the chosen index, and its keys if any): the result as it is now,
   * then kept up to date from the index's change stream, with the latest changes below it.
   */
  toggleWatch() {
    if (this.watching) {
      this.stopWatching();
      this.meta.append(field('stopped', 'on request'));
      return;
    }
    const index = this.indexSelect.value;
    const keys = this.keys();
    const columns = this.columnsOf.get(index) ?? [];
    const live = new LiveResult();
    const changes = []; // the latest changes, newest first: [timestamp, diff, row]
    let events = 0;
    const rowsValue = el('span', { class: 'field-value' }, '0');
    const completeValue = el('span', { class: 'field-value' }, '–');
    const resultArea = el('div', { class: 'scroll' });
    const changesArea = el('div', { class: 'scroll' });
    replace(this.meta, field('watching', keys.length ? `${index} (key ${keys.join(', ')})` : index),
      fieldWith('rows', rowsValue), fieldWith('complete up to', completeValue));
    replace(this.result, resultArea, el('h3', {}, 'Latest changes'), changesArea);
    const draw = () => {
      rowsValue.textContent = String(live.size);
      const shown = live.sorted(SHOWN_ROWS);
      replace(resultArea, table(columns.length ? columns : shown[0]?.map((_, i) => `#${i + 1}`) ?? [],
        shown.map(r => r.map(datum)), { class: 'grid', id: 'watch-table' }),
      live.size > shown.length ? el('p', { class: 'muted small' }, `the first ${shown.length} of ${live.size} rows`) : null);
      replace(changesArea, changes.length === 0 ? el('p', { class: 'muted' }, 'no change yet')
        : table(['timestamp', '±', ...columns], changes.map(([t, diff, row]) => [millisTime(t), diff > 0 ? `+${diff}` : String(diff), ...row.map(datum)]),
          { class: 'grid', id: 'watch-changes' }));
    };
    draw();
    let drawing = null; // a draw waiting, so that a burst of changes is drawn once
    const redraw = () => {
      drawing ??= setTimeout(() => {
        drawing = null;
        draw();
      }, REDRAW_MS);
    };
    this.watchButton.textContent = 'Stop watching';
    const stop = reason => {
      this.stopWatching();
      this.meta.append(field('stopped', reason));
    };
    let snapshot = true; // the first change event is the result at the stream's start
    const stream = this.api.stream(changesPath(index, keys), event => {
      if (this.watching !== stream) {
        return;
      }
      events++;
      const data = event.data ?? {};
      if (event.event === 'end') {
        stop(`${data.error ?? 'ended'}${data.detail ? `: ${data.detail}` : ''}`);
        return;
      }
      if (Array.isArray(data.updates)) {
        if (!live.apply(data.updates)) {
          stop(`more than ${MAX_WATCH_ROWS.toLocaleString('en')} rows: narrow the watch with keys`);
          return;
        }
        if (!snapshot) {
          for (const [row, diff] of data.updates) {
            changes.unshift([data.timestamp, diff, row]);
          }
          changes.length = Math.min(changes.length, SHOWN_CHANGES);
        }
        snapshot = false;
        completeValue.textContent = millisTime(data.timestamp);
        redraw();
      } else if (data.progress !== undefined) {
        snapshot = false;
        completeValue.textContent = millisTime(data.progress - 1);
      }
    }, error => {
      if (this.watching === stream) {
        stop(error ? `${error.status ?? ''} ${error.message}` : `the server closed the stream after ${events} events`);
      }
    });
    this.watching = stream;
  }

  /** Ends the watch, if one runs; its stream's end is then not reported. */
  stopWatching() {
    const stream = this.watching;
    if (!stream) {
      return;
    }
    this.watching = null;
    stream.abort();
    this.watchButton.textContent = 'Watch';
    this.setMode(this.mode);
  }
}

function field(name, value) {
  return fieldWith(name, el('span', { class: 'field-value' }, value));
}

/** A named field whose value element the caller keeps, to update it in place. */
function fieldWith(name, valueElement) {
  return el('span', { class: 'field', 'data-field': name }, el('span', { class: 'field-name' }, name), ' ', valueElement);
}
