// Errors: failed indexes and dataflows, the error collections (records sources refused, stored rows reads skip),
// the requests the server refused (from its http_server_requests metrics), and the requests this console sent
// that were refused, with their problem details.
import { el, table, replace } from './dom.js';

export class ErrorsView {
  constructor(root, api) {
    this.api = api;
    this.failed = root.querySelector('#failed-indexes');
    this.sources = root.querySelector('#source-errors');
    this.storage = root.querySelector('#storage-errors');
    this.server = root.querySelector('#server-rejections');
    this.console = root.querySelector('#console-rejections');
    api.listeners.add(() => this.renderConsole());
    this.renderConsole();
  }

  /** Failed indexes (their state) and failed dataflows (the tandem_dataflows error collection). */
  renderCatalog(model) {
    const rows = model.indexes.filter(i => i.state === 'failed').map(i => [i.name, 'index', i.error || ''])
      .concat(model.indexes.filter(i => i.state !== 'failed' && i.data_error).map(i => [i.name, 'index data', i.data_error]));
    const listed = new Set(model.indexes.filter(i => i.state === 'failed').map(i => i.id));
    for (const d of model.failedDataflows) {
      if (!listed.has(d.id)) {
        rows.push([model.name(d.id), 'dataflow', d.error]);
      }
    }
    replace(this.failed, rows.length === 0 ? el('p', { class: 'muted' }, 'no failed indexes or dataflows, no errors in indexed data')
      : table(['name', 'kind', 'error'], rows, { class: 'grid', id: 'failed-table' }));
  }

  /**
   * The error collections: records each source could not ingest (tandem_source_errors) with the sources
   * that failed or report a problem (tandem_sources), and stored rows that reads skip (tandem_storage_errors).
   */
  renderCollections(sources, sourceErrors, storageErrors) {
    const rows = sources.filter(s => s.state === 'failed' || s.detail)
      .map(s => [s.name, '', '', `${s.state}${s.detail ? `: ${s.detail}` : ''}`, ''])
      .concat(sourceErrors.map(e => [e.source, String(e.partition), String(e.offset), e.error, e.value ?? '']));
    replace(this.sources, rows.length === 0 ? el('p', { class: 'muted' }, 'none')
      : table(['source', 'partition', 'offset', 'error', 'value'], rows, { class: 'grid', id: 'source-errors-table' }));
    replace(this.storage, storageErrors.length === 0 ? el('p', { class: 'muted' }, 'none')
      : table(['table', 'row', 'multiplicity', 'log offset', 'error'],
        storageErrors.map(e => [e.table, e.row, String(e.multiplicity), String(e.log_offset), e.error]), { class: 'grid', id: 'storage-errors-table' }));
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
