// Small DOM helpers. Text from the server is only ever set as text (never parsed as HTML).

/** An element with attributes (on* attributes as listeners) and children (strings become text). */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) {
      continue;
    }
    if (k.startsWith('on') && typeof v === 'function') {
      e.addEventListener(k.slice(2), v);
    } else if (k === 'class') {
      e.className = v;
    } else {
      e.setAttribute(k, v === true ? '' : v);
    }
  }
  for (const c of children.flat()) {
    if (c !== undefined && c !== null && c !== false) {
      e.append(c instanceof Node ? c : String(c));
    }
  }
  return e;
}

/** A table with a header of {@code columns} and one row per entry of {@code rows} (arrays of cells). */
export function table(columns, rows, attrs = {}) {
  return el('table', attrs,
    el('thead', {}, el('tr', {}, columns.map(c => el('th', {}, c)))),
    el('tbody', {}, rows.map(r => (r instanceof Node ? r : el('tr', {}, r.map(cell => el('td', {}, cell)))))));
}

/** A datum as text: null as NULL, strings as they are, the rest as JSON. */
export function datum(v) {
  if (v === null || v === undefined) {
    return el('span', { class: 'null' }, 'NULL');
  }
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** A timestamp (milliseconds since the epoch) as its number with the UTC time of day. */
export function millisTime(ms) {
  if (ms === null || ms === undefined) {
    return 'closed';
  }
  return `${ms} (${new Date(ms).toISOString().slice(11, 23)})`;
}

/** A duration in milliseconds, short. */
export function duration(ms) {
  if (ms === null || ms === undefined || Number.isNaN(ms)) {
    return '–';
  }
  if (ms < 1) {
    return `${(ms * 1000).toFixed(0)} µs`;
  }
  if (ms < 1000) {
    return `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
  }
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Replaces the children of {@code parent}. */
export function replace(parent, ...children) {
  parent.replaceChildren(...children.flat().filter(c => c !== null && c !== undefined));
}
