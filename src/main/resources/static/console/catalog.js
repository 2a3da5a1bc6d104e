// The catalog: tables (with their size and frontiers), views and indexes, each index with its live hydration progress bar.
import { el, table, replace, millisTime, duration } from './dom.js';

/**
 * The percentage an index's bar shows: 100 once hydrated; while hydrating, records processed over the
 * (estimated) total from tandem_hydration_progress, at most 99, and never less than what was shown before.
 */
export function hydrationPercent(index, progress, shownBefore = 0) {
  if (index.hydrated) {
    return 100;
  }
  let p = 0;
  if (progress && progress.total > 0) {
    p = Math.min(99, Math.floor((100 * progress.processed) / progress.total));
  }
  return Math.max(p, Math.min(99, shownBefore));
}

export class CatalogView {
  constructor(root, api, onChange) {
    this.root = root;
    this.api = api;
    this.onChange = onChange;
    this.shown = new Map(); // index id -> percent last shown
    this.tables = root.querySelector('#tables');
    this.views = root.querySelector('#views');
    this.indexes = root.querySelector('#indexes');
    this.form = root.querySelector('#create-index');
    this.formOn = this.form.querySelector('[name=on]');
    this.formResult = this.form.querySelector('.form-result');
    this.form.addEventListener('submit', e => {
      e.preventDefault();
      this.createIndex();
    });
  }

  async createIndex() {
    const data = new FormData(this.form);
    const key = String(data.get('key')).split(',').map(s => s.trim()).filter(s => s);
    const body = { name: String(data.get('name')).trim(), on: String(data.get('on')), key };
    replace(this.formResult, 'creating…');
    try {
      const index = await this.api.post('/v1/indexes', body);
      replace(this.formResult, el('span', { class: 'ok' }, `created ${index.name} (${index.state})`));
      this.onChange();
    } catch (e) {
      replace(this.formResult, el('span', { class: 'bad' }, `${e.status}: ${e.message}`));
    }
  }

  render(model) {
    const tableRows = model.tables.map(t => el('tr', { 'data-table': t.name },
      el('td', {}, t.name),
      el('td', {}, t.id),
      el('td', {}, columnsText(t.columns)),
      el('td', { class: 'num' }, t.records === undefined ? '–' : t.records.toLocaleString('en')),
      el('td', { class: 'num small' }, millisTime(t.since)),
      el('td', { class: 'num small' }, millisTime(t.write_frontier)),
      el('td', { class: 'num' }, duration(lagOf(t.write_frontier, model.serverNow)))));
    replace(this.tables, table(['name', 'id', 'columns', 'records', 'since', 'write frontier', 'lag'], tableRows, { class: 'grid' }));
    replace(this.views, model.views.length === 0 ? el('p', { class: 'muted' }, 'no views')
      : table(['name', 'id', 'columns'], model.views.map(v => [v.name, v.id, columnsText(v.columns)]), { class: 'grid' }));
    const live = new Set(model.indexes.map(i => i.id));
    for (const id of this.shown.keys()) {
      if (!live.has(id)) {
        this.shown.delete(id);
      }
    }
    const rows = model.indexes.map(i => {
      const percent = hydrationPercent(i, model.progress.get(i.id), this.shown.get(i.id));
      this.shown.set(i.id, percent);
      const lag = i.state === 'failed' ? null : lagOf(i.write_frontier, model.serverNow);
      return el('tr', { 'data-index': i.name, 'data-state': i.state },
        el('td', {}, i.name),
        el('td', {}, i.on),
        el('td', {}, i.key.join(', ')),
        el('td', { class: `state ${i.state}` }, i.state, i.error ? el('div', { class: 'bad small' }, i.error) : null),
        el('td', {}, progressBar(i.name, percent, i.state)),
        el('td', { class: 'num' }, i.records.toLocaleString('en')),
        el('td', { class: 'num small' }, i.state === 'failed' ? '–' : millisTime(i.since)),
        el('td', { class: 'num small' }, i.state === 'failed' ? '–' : millisTime(i.write_frontier)),
        el('td', { class: 'num' }, duration(lag)));
    });
    replace(this.indexes, model.indexes.length === 0 ? el('p', { class: 'muted' }, 'no indexes yet: create one below')
      : table(['name', 'on', 'key', 'state', 'hydration', 'records', 'since', 'write frontier', 'lag'], rows, { class: 'grid' }));
    const names = [...model.tables, ...model.views].map(c => c.name);
    if (names.join() !== [...this.formOn.options].map(o => o.value).join()) {
      const selected = this.formOn.value;
      replace(this.formOn, names.map(n => el('option', { value: n, selected: n === selected }, n)));
    }
  }
}

/** How far a write frontier is behind the server's present, in milliseconds; null when either is unknown or closed. */
function lagOf(writeFrontier, serverNow) {
  return writeFrontier === null || writeFrontier === undefined || serverNow === null ? null : Math.max(0, serverNow - writeFrontier);
}

function columnsText(columns) {
  return columns.map(c => `${c.name} ${c.type}${c.nullable ? '' : ' not null'}`).join(', ');
}

function progressBar(name, percent, state) {
  return el('div', {
    class: `progress ${state}`, role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': percent,
    'aria-label': `hydration of ${name}`, title: state === 'hydrating' ? 'records processed of an estimated total' : state,
  }, el('div', { class: 'fill', style: `width: ${percent}%` }), el('span', { class: 'label' }, `${percent} %`));
}
