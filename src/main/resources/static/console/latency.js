// Read latency next to maintenance work: the interactive runtime's peek latency p50/p99, the
// maintenance runtime's busy time (operator step seconds per second, i.e. cores kept busy; a step is
// counted when it ends, so a long hydration step shows as one burst at its end) and the process' CPU
// (live, both runtimes), from two scrapes of /actuator/prometheus some seconds apart.
import { replace, el, duration } from './dom.js';
import { TimeChart } from './charts.js';
import { parseSamples, histogram, difference, quantile, sum } from './prometheus.js';

const PEEKS = 'tandem_peek_duration_seconds';
const STEPS = 'tandem_operator_step_duration_seconds_sum';

export class LatencyView {
  constructor(root, windowSeconds = 10) {
    this.windowSeconds = windowSeconds;
    this.scrapes = []; // {time (s), samples}
    this.chart = new TimeChart(root.querySelector('#latency-chart'), {
      scales: { ms: { label: 'peek latency (ms)', min: 1 }, cores: { label: 'busy (cores)', min: 1 } },
      scaleOf: name => (name.endsWith(' busy') || name === 'process CPU' ? 'cores' : 'ms'),
      format: { ms: v => duration(v), cores: v => v.toFixed(2) },
    });
    this.tiles = root.querySelector('#latency-tiles');
  }

  /** Takes one scrape (its text and the browser's time in seconds) and returns the samples. */
  add(text, time) {
    const samples = parseSamples(text);
    this.scrapes.push({ time, samples });
    while (this.scrapes.length > 2 && this.scrapes[1].time <= time - this.windowSeconds) {
      this.scrapes.shift();
    }
    if (this.scrapes.length < 2) {
      return samples;
    }
    const then = this.scrapes[0];
    const seconds = time - then.time;
    const peekRole = samples.some(s => s.name === `${PEEKS}_count` && s.labels.role === 'interactive') ? 'interactive' : 'solo';
    const busyRole = peekRole === 'interactive' ? 'maintenance' : 'solo';
    const fast = { role: peekRole, path: 'fast', outcome: 'rows' };
    const recent = difference(histogram(samples, PEEKS, fast), histogram(then.samples, PEEKS, fast));
    const p50 = quantile(0.5, recent);
    const p99 = quantile(0.99, recent);
    const slow = { role: peekRole, path: 'slow', outcome: 'rows' };
    const slowP99 = quantile(0.99, difference(histogram(samples, PEEKS, slow), histogram(then.samples, PEEKS, slow)));
    const peeks = recent.length ? recent[recent.length - 1][1] : 0;
    const busy = (sum(samples, STEPS, { role: busyRole }) - sum(then.samples, STEPS, { role: busyRole })) / seconds;
    const cpu = sum(samples, 'process_cpu_usage') * sum(samples, 'system_cpu_count');
    const ms = v => (v === null ? null : v * 1000);
    this.chart.push(time, {
      'fast p50': ms(p50), 'fast p99': ms(p99), 'slow p99': ms(slowP99), [`${busyRole} busy`]: Math.max(0, busy), 'process CPU': cpu,
    });
    replace(this.tiles,
      tile('fast-path p50', duration(ms(p50)), 'p50'),
      tile('fast-path p99', duration(ms(p99)), 'p99'),
      tile('peeks / s', (peeks / seconds).toFixed(1), 'rate'),
      tile(`${busyRole} busy`, `${Math.max(0, busy).toFixed(2)} cores`, 'busy'),
      tile('process CPU', `${cpu.toFixed(2)} cores`, 'cpu'),
      el('p', { class: 'muted small' }, `over the last ${Math.round(seconds)} s, runtime ${peekRole}`));
    return samples;
  }
}

function tile(label, value, key) {
  return el('div', { class: 'tile', 'data-tile': key }, el('div', { class: 'tile-value' }, value), el('div', { class: 'tile-label' }, label));
}
