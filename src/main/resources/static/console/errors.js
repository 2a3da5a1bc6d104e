// Errors: failed indexes and dataflows, the requests the server refused (from its http_server_requests metrics), and
// the requests this console sent that were refused, with their problem details.
import { el, table, replace } from './dom.js';

export class ErrorsView {
  constructor(root, api) {
    this.api = api;
    this.failed = root.querySelector('#failed-indexes');
    this.server = root.querySelector('#server-rejections');
    this.console = root.querySelector('#console-rejections');
    api.listeners.add(() => this.renderConsole());
    this.renderConsole();
  }

  /** Failed indexes (their state) and failed dataflows (the tandem_dataflows error collection). */
  renderCatalog(model) {
    const rows = model.indexes.filter(i => i.state === 'failed').map(i => [i.name, 'index', i.error || '']);
    const listed = new Set(model.indexes.filter(i => i.state === 'failed').map(i => i.id));
    for (const d of model.failedDataflows) {
      if (!listed.has(d.id)) {
        rows.push([model.name(d.id), 'dataflow', d.error]);
      }
    }
    replace(this.failed, rows.length === 0 ? el('p', { class: 'muted' }, 'no failed indexes or dataflows')
      : table(['name', 'kind', 'error'], rows, { class: 'grid', id: 'failed-table' }));
  }

  /** Requests answered with a 4xx or 5xx since the server started, by route, status and exception. */
  renderServer(samples) {
    const rows = samples
      .filter(s => s.name === 'http_server_requests_seconds_count' && /^[45]/.test(s.labels.status || '') && s.value > 0)
      .sort((a, b) => b.value - a.value)
      .map(s => [s.labels.method, s.labels.uri, s.labels.status, s.labels.exception || s.labels.error || '', String(s.value)]);
    replace(this.server, rows.length === 0 ? el('p', { class: 'muted' }, 'none')
      : table(['method', 'route', 'status', 'exception', 'count'], rows, { class: 'grid' }));
  }

  renderConsole() {
    const rows = this.api.rejected.map(r => [r.at.toISOString().slice(11, 23), r.method, r.path, String(r.status), r.title, r.detail]);
    replace(this.console, rows.length === 0 ? el('p', { class: 'muted' }, 'none')
      : table(['at', 'method', 'path', 'status', 'title', 'detail'], rows, { class: 'grid', id: 'console-rejections-table' }));
  }
}
