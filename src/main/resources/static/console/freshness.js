// Freshness: each collection's lag (the server's present minus its write frontier) over time, and the
// read holds that keep each one's history readable.
import { el, table, replace, millisTime, duration } from './dom.js';
import { TimeChart } from './charts.js';

export class FreshnessView {
  constructor(root) {
    this.chart = new TimeChart(root.querySelector('#lag-chart'), {
      scales: { ms: { label: 'lag (ms)', min: 10 } }, scaleOf: () => 'ms', format: { ms: v => duration(v) },
    });
    this.holds = root.querySelector('#holds');
    this.showSystem = root.querySelector('#show-system');
  }

  /** Adds a point per collection at the time of the frontiers read (the server's clock). */
  render(model) {
    if (model.serverNow === null) {
      return;
    }
    const points = {};
    for (const [id, f] of model.frontiers) {
      if ((this.showSystem.checked || !model.system.has(id)) && f.write_frontier !== null) {
        points[model.name(id)] = Math.max(0, model.serverNow - f.write_frontier);
      }
    }
    this.chart.push(model.serverNow / 1000, points);
    const rows = model.holds
      .filter(h => this.showSystem.checked || !model.system.has(h.collection_id))
      .map(h => {
        const upper = model.frontiers.get(h.collection_id)?.write_frontier;
        return [model.name(h.collection_id), h.holder, millisTime(h.frontier),
          upper === undefined || upper === null || h.frontier === null ? '–' : duration(Math.max(0, upper - h.frontier))];
      });
    replace(this.holds, rows.length === 0 ? el('p', { class: 'muted' }, 'no read holds')
      : table(['collection', 'holder', 'frontier', 'behind write frontier'], rows, { class: 'grid' }));
  }
}
