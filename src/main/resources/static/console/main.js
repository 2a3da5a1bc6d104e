// The console's entry point: polls the public API once a second (catalog, introspection; four times a
// second while an index hydrates, so its bar moves as the server samples progress) and, every two seconds,
// the Prometheus endpoint and the error collections, and hands what it read to each view.
import { Api } from './api.js';
import { CatalogView } from './catalog.js';
import { FreshnessView } from './freshness.js';
import { LatencyView } from './latency.js';
import { QueryView } from './query.js';
import { ErrorsView } from './errors.js';
import { detectFeatures } from './features.js';
import { replace, el } from './dom.js';

const CATALOG_EVERY_MS = 1000;
const HYDRATING_EVERY_MS = 250;
const METRICS_EVERY_MS = 2000;

const api = new Api();
const status = document.querySelector('#status');
const catalog = new CatalogView(document.querySelector('#catalog'), api, () => refreshCatalog());
const freshness = new FreshnessView(document.querySelector('#freshness'));
const latency = new LatencyView(document.querySelector('#latency'));
const query = new QueryView(document.querySelector('#query'), api);
const errors = new ErrorsView(document.querySelector('#errors'), api);
let features = null;   // {sql, watch} once the server's OpenAPI description was read
let detecting = false;
let hydrating = false;
let refused = false;    // the last refresh got 401: wait for another token before asking again

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

/** The header's status line for a refresh that failed: what went wrong, and what to do about a missing or refused token. */
function notUpdating(e) {
  const hint = e.status === 401 ? (api.token ? ' — the token was not accepted' : ' — this server asks for a token: paste one above')
    : e.status === 403 ? ' — the token lacks the reader role' : '';
  return el('span', { class: 'bad', title: e.problem?.detail ?? '' }, `not updating: ${e.status || ''} ${e.message}${hint}`);
}

async function refreshCatalog() {
  try {
    const model = await readModel();
    hydrating = model.indexes.some(i => i.state === 'hydrating');
    catalog.render(model);
    freshness.render(model);
    query.render(model);
    errors.renderCatalog(model);
    replace(status, el('span', { class: 'ok' }, `live · ${new Date().toISOString().slice(11, 19)} UTC`));
    detect();
  } catch (e) {
    hydrating = false;
    // A refused or missing token is not retried until it changes: every refused attempt makes the server
    // hold this address's next logins longer (its login throttle), the right token's too.
    refused = e.status === 401;
    replace(status, notUpdating(e));
  }
}

async function refreshSlow() {
  try {
    const text = await api.get('/actuator/prometheus');
    const samples = latency.add(String(text), Date.now() / 1000);
    errors.renderServer(samples);
  } catch {
    // the failure is listed among the rejected requests; the next scrape tries again
  }
  try {
    const [sources, sourceErrors, storageErrors] = await Promise.all([
      api.get('/v1/introspection/tandem_sources'), api.get('/v1/introspection/tandem_source_errors'),
      api.get('/v1/introspection/tandem_storage_errors'),
    ]);
    errors.renderCollections(records(sources), records(sourceErrors), records(storageErrors));
  } catch {
    // as above
  }
}

/** Asks once what the server offers (again after a failure, or when the token changes), without holding up the refresh. */
function detect() {
  if (features || detecting) {
    return;
  }
  detecting = true;
  detectFeatures(api).then(found => {
    features = found;
    if (found) {
      query.setFeatures(found);
    }
  }).finally(() => {
    detecting = false;
  });
}

function every(delay, task) {
  const loop = async () => {
    if (!refused) {
      await task();
    }
    setTimeout(loop, delay());
  };
  loop();
}

const tokenInput = document.querySelector('#token');
tokenInput.value = api.token;
tokenInput.addEventListener('change', () => {
  api.token = tokenInput.value.trim();
  features = null;
  refused = false;
  refreshCatalog();
});

every(() => (hydrating ? HYDRATING_EVERY_MS : CATALOG_EVERY_MS), refreshCatalog);
every(() => METRICS_EVERY_MS, refreshSlow);
