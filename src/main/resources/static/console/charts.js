// Rolling time-series charts drawn by uPlot (the WebJar org.webjars.npm:uplot, pinned in pom.xml).
import uPlot from '../webjars/uplot/1.6.30/dist/uPlot.esm.js';

const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#ca8a04', '#db2777', '#4b5563', '#65a30d'];

/**
 * A chart of named series over the last {@code windowSeconds}: push(time, {name: value}) adds a point
 * to each series (a series missing from a push gets a gap). Each series has a scale: {@code scaleOf(name)}
 * names it, and {@code scales} gives each scale's axis label and side.
 */
export class TimeChart {
  constructor(element, { windowSeconds = 300, scales = { y: { label: '' } }, scaleOf = () => 'y', format = {} } = {}) {
    this.element = element;
    this.windowSeconds = windowSeconds;
    this.scales = scales;
    this.scaleOf = scaleOf;
    this.format = format;
    this.times = [];
    this.series = new Map(); // name -> values aligned with times
    this.plot = null;
    this.shape = '';
    new ResizeObserver(() => this.resize()).observe(element);
  }

  push(time, values) {
    this.times.push(time);
    for (const name of Object.keys(values)) {
      if (!this.series.has(name)) {
        this.series.set(name, new Array(this.times.length - 1).fill(null));
      }
    }
    for (const [name, column] of this.series) {
      column.push(values[name] ?? null);
    }
    const cutoff = time - this.windowSeconds;
    let drop = 0;
    while (drop < this.times.length && this.times[drop] < cutoff) {
      drop++;
    }
    if (drop > 0) {
      this.times.splice(0, drop);
      for (const column of this.series.values()) {
        column.splice(0, drop);
      }
    }
    for (const [name, column] of this.series) {
      if (column.every(v => v === null)) {
        this.series.delete(name);
      }
    }
    this.draw();
  }

  draw() {
    const names = [...this.series.keys()];
    const data = [this.times, ...names.map(n => this.series.get(n))];
    const shape = names.join('\u0000');
    if (this.plot && shape === this.shape) {
      this.plot.setData(data);
      return;
    }
    if (this.plot) {
      this.plot.destroy();
    }
    this.shape = shape;
    const scaleNames = Object.keys(this.scales);
    const options = {
      width: Math.max(200, this.element.clientWidth),
      height: 220,
      legend: { live: false },
      cursor: { drag: { x: false, y: false } },
      scales: {
        // One point alone would get a span of years from uPlot's auto-range: it gets the ten seconds before it instead.
        x: { time: true, range: (u, min, max) => (min === max ? [min - 10, max] : [min, max]) },
        ...Object.fromEntries(scaleNames.map(s => [s, { auto: true, range: (u, min, max) => [0, Math.max(max * 1.1, this.scales[s].min ?? 1)] }])),
      },
      series: [{}, ...names.map((name, i) => ({
        label: name,
        scale: this.scaleOf(name),
        stroke: COLORS[i % COLORS.length],
        width: 1.5,
        spanGaps: false,
        value: (u, v) => (v === null || v === undefined ? '–' : (this.format[this.scaleOf(name)] || (x => x.toFixed(1)))(v)),
      }))],
      axes: [{}, ...scaleNames.map((s, i) => ({
        scale: s,
        label: this.scales[s].label,
        side: i === 0 ? 3 : 1,
        grid: { show: i === 0 },
        size: 60,
      }))],
    };
    this.plot = new uPlot(options, data, this.element);
  }

  resize() {
    if (this.plot) {
      this.plot.setSize({ width: Math.max(200, this.element.clientWidth), height: 220 });
    }
  }
}
