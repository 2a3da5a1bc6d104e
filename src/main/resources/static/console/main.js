// The console's entry point: polls the public API once a second (catalog, introspection) and the
// Prometheus endpoint every two seconds, and hands what it read to each view.
import { Api } from './api.js';
import { CatalogView } from './catalog.js';
import { FreshnessView } from './freshness.js';
import { LatencyView } from './latency.js';
import { QueryView } from './query.js';
import { ErrorsView } from './errors.js';
import { detectFeatures } from './features.js';
import { replace, el } from './dom.js';

const CATALOG_EVERY_MS = 1000;
const METRICS_EVERY_MS = 2000;

const api = new Api();
const status = document.querySelector('#status');
const catalog = new CatalogView(document.querySelector('#catalog'), api, () => refreshCatalog());
const freshness = new FreshnessView(document.querySelector('#freshness'));
const latency = new LatencyView(document.querySelector('#latency'));
const query = new QueryView(document.querySelector('#query'), api);
const errors = new ErrorsView(document.querySelector('#errors'), api);

/** Rows of a read answer as objects keyed by column name. */
function records(answer) {
  return answer.rows.map(r => Object.fromEntries(answer.columns.map((c, i) => [c, r[i]])));
}

/** One consistent look at the catalog and the introspection collections. */
async function readModel() {
  const [tables, views, indexes, collections, progress, frontiers, holds, dataflows] = await Promise.all([
    api.get('/v1/tables'), api.get('/v1/views'), api.get('/v1/indexes'), api.get('/v1/introspection'),
    api.get('/v1/introspection/tandem_hydration_progress'), api.get('/v1/introspection/tandem_frontiers'),
    api.get('/v1/introspection/tandem_read_holds'), api.get('/v1/introspection/tandem_dataflows'),
  ]);
  const names = new Map([...tables, ...views, ...indexes, ...collections].map(c => [c.id, c.name]));
  return {
    tables, views, indexes,
    system: new Set(collections.map(c => c.id)),
    name: id => names.get(id) ?? id,
    progress: new Map(records(progress).map(p => [p.dataflow, { processed: p.records_processed, total: p.records_total }])),
    frontiers: new Map(records(frontiers).map(f => [f.collection_id, f])),
    holds: records(holds),
    // Dataflows that failed, from tandem_dataflows' error column (where the server has one), one per dataflow.
    failedDataflows: [...new Map(records(dataflows).filter(d => d.error).map(d => [d.id, d])).values()],
    // The server's clock when it answered the frontiers read: the read time plus how far it lagged.
    serverNow: frontiers.as_of + frontiers.lag_ms,
  };
}

async function refreshCatalog() {
  try {
    const model = await readModel();
    catalog.render(model);
    freshness.render(model);
    query.render(model);
    errors.renderCatalog(model);
    replace(status, el('span', { class: 'ok' }, `live · ${new Date().toISOString().slice(11, 19)} UTC`));
  } catch (e) {
    replace(status, el('span', { class: 'bad' }, `not updating: ${e.status ?? ''} ${e.message}`));
  }
}

async function refreshMetrics() {
  try {
    const text = await api.get('/actuator/prometheus');
    const samples = latency.add(String(text), Date.now() / 1000);
    errors.renderServer(samples);
  } catch {
    // the failure is listed among the rejected requests; the next scrape tries again
  }
}

function every(ms, task) {
  const loop = async () => {
    await task();
    setTimeout(loop, ms);
  };
  loop();
}

const tokenInput = document.querySelector('#token');
tokenInput.value = api.token;
tokenInput.addEventListener('change', async () => {
  api.token = tokenInput.value.trim();
  query.setFeatures(await detectFeatures(api));
  refreshCatalog();
});

detectFeatures(api).then(f => query.setFeatures(f));
every(CATALOG_EVERY_MS, refreshCatalog);
every(METRICS_EVERY_MS, refreshMetrics);
