// The console's only way to the server: the public HTTP API, with the optional Bearer token the user
// pasted (kept in sessionStorage, so it lasts as long as the tab). Every answer that is not a success is
// recorded as a rejected request, which the errors view shows.

const TOKEN_KEY = 'tandem.console.token';
/** How long a request may go unanswered before the console gives up on it (a change stream is not limited). */
const TIMEOUT_MS = 15000;

/** A request the server refused or could not answer: its status and problem (application/problem+json) fields. */
export class ApiError extends Error {
  constructor(method, path, status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.method = method;
    this.path = path;
    this.status = status;
    this.problem = problem;
  }
}

export class Api {
  constructor(base = '') {
    this.base = base;
    this.rejected = [];          // the latest rejected requests, newest first
    this.maxRejected = 50;
    this.listeners = new Set();  // called with each rejected request
  }

  get token() {
    return sessionStorage.getItem(TOKEN_KEY) || '';
  }

  set token(value) {
    if (value) {
      sessionStorage.setItem(TOKEN_KEY, value);
    } else {
      sessionStorage.removeItem(TOKEN_KEY);
    }
  }

  headers(extra = {}) {
    const h = { ...extra };
    if (this.token) {
      h.Authorization = `Bearer ${this.token}`;
    }
    return h;
  }

  /** Sends a request; resolves to the parsed JSON answer (or text), rejects with an ApiError. */
  async request(method, path, body, { record = true } = {}) {
    const init = {
      method, headers: this.headers(body === undefined ? {} : { 'Content-Type': 'application/json' }), signal: AbortSignal.timeout(TIMEOUT_MS),
    };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
    }
    let response;
    let text;
    try {
      response = await fetch(this.base + path, init);
      text = await response.text();
    } catch (e) {
      const detail = e.name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS / 1000} s` : `the server did not answer (${e.message})`;
      throw this.reject(method, path, 0, { title: 'Network error', detail }, record);
    }
    const type = response.headers.get('Content-Type') || '';
    let parsed = text;
    if (type.includes('json') && text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (!response.ok) {
      const problem = typeof parsed === 'object' && parsed ? parsed : { title: response.statusText, detail: String(parsed).slice(0, 500) };
      throw this.reject(method, path, response.status, problem, record);
    }
    return parsed;
  }

  get(path, options) {
    return this.request('GET', path, undefined, options);
  }

  post(path, body, options) {
    return this.request('POST', path, body, options);
  }

  reject(method, path, status, problem, record) {
    const error = new ApiError(method, path, status, problem);
    if (record) {
      const entry = { at: new Date(), method, path, status, title: problem.title || '', detail: problem.detail || '' };
      this.rejected.unshift(entry);
      this.rejected.length = Math.min(this.rejected.length, this.maxRejected);
      this.listeners.forEach(l => l(entry));
    }
    return error;
  }

  /**
   * Opens a Server-Sent Events stream with fetch (EventSource cannot send an Authorization header) and
   * calls onEvent({event, data}) for each event until the returned AbortController is aborted.
   */
  stream(path, onEvent, onEnd) {
    const abort = new AbortController();
    (async () => {
      try {
        const response = await fetch(this.base + path, { headers: this.headers({ Accept: 'text/event-stream' }), signal: abort.signal });
        if (!response.ok) {
          let problem = { title: response.statusText };
          try {
            problem = JSON.parse(await response.text());
          } catch { /* not JSON: keep the status text */ }
          throw this.reject('GET', path, response.status, problem, true);
        }
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) {
            break;
          }
          buffer += value.replace(/\r\n?/g, '\n');
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const event = parseSseEvent(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
            if (event) {
              onEvent(event);
            }
          }
        }
        onEnd(null);
      } catch (e) {
        onEnd(e.name === 'AbortError' ? null : e);
      }
    })();
    return abort;
  }
}

/** One SSE event block as {event, id, data}; data is parsed as JSON when it is JSON. Null for a comment-only block. */
export function parseSseEvent(block) {
  let event = 'message';
  let id = null;
  const data = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) {
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') {
      event = value;
    } else if (field === 'data') {
      data.push(value);
    } else if (field === 'id') {
      id = value;
    }
  }
  if (data.length === 0) {
    return null;
  }
  const text = data.join('\n');
  let parsed = text;
  try {
    parsed = JSON.parse(text);
  } catch { /* plain text data */ }
  return { event, id, data: parsed };
}
