// Reading /actuator/prometheus in the browser: the text exposition format parsed into samples, and
// quantiles estimated from the difference of two scrapes of a cumulative histogram, the way Prometheus'
// histogram_quantile does (linear within the bucket the rank falls into).

/** Samples of the text format: [{name, labels: {k: v}, value}]. Comments and malformed lines are skipped. */
export function parseSamples(text) {
  const samples = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) {
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) {
      continue;
    }
    const labels = {};
    const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
    let l;
    while ((l = re.exec(m[3] || '')) !== null) {
      labels[l[1]] = l[2].replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: m[1], labels, value: parseValue(m[4]) });
  }
  return samples;
}

function parseValue(s) {
  switch (s) {
    case '+Inf': return Infinity;
    case '-Inf': return -Infinity;
    default: return Number(s);
  }
}

function matches(labels, match) {
  return Object.entries(match).every(([k, v]) => labels[k] === v);
}

/** The sum of the samples named {@code name} whose labels include {@code match}. */
export function sum(samples, name, match = {}) {
  let total = 0;
  for (const s of samples) {
    if (s.name === name && matches(s.labels, match)) {
      total += s.value;
    }
  }
  return total;
}

/** A cumulative histogram summed over the matching series: [[upperBound, count]] in increasing bound order. */
export function histogram(samples, name, match = {}) {
  const counts = new Map();
  for (const s of samples) {
    if (s.name === `${name}_bucket` && matches(s.labels, match)) {
      const le = parseValue(s.labels.le);
      counts.set(le, (counts.get(le) || 0) + s.value);
    }
  }
  return [...counts.entries()].sort((a, b) => a[0] - b[0]);
}

/** The buckets of {@code now} less those of {@code before} (same bounds): what was observed in between. */
export function difference(now, before) {
  const old = new Map(before);
  return now.map(([le, count]) => [le, Math.max(0, count - (old.get(le) || 0))]);
}

/**
 * The q-quantile (0..1) of a cumulative histogram, or null when it holds no observation. Within the
 * bucket where the rank falls the value is interpolated linearly from the previous bound; a rank in the
 * +Inf bucket answers the highest finite bound.
 */
export function quantile(q, buckets) {
  if (buckets.length === 0) {
    return null;
  }
  const total = buckets[buckets.length - 1][1];
  if (!(total > 0)) {
    return null;
  }
  const rank = q * total;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const [le, count] of buckets) {
    if (count >= rank && count > lowerCount) {
      if (le === Infinity) {
        return lowerBound;
      }
      return lowerBound + (le - lowerBound) * ((rank - lowerCount) / (count - lowerCount));
    }
    lowerBound = le === Infinity ? lowerBound : le;
    lowerCount = count;
  }
  return lowerBound;
}
