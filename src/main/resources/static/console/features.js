// What the server offers beyond the core API, found out by asking it (never assumed).
import { ApiError } from './api.js';

/**
 * {sql, watch}: SQL when POST /v1/sql exists (an empty statement is refused with anything but 404/405),
 * watch when the OpenAPI description lists an index change stream.
 */
export async function detectFeatures(api) {
  let sql = false;
  try {
    await api.post('/v1/sql', {}, { record: false });
    sql = true;
  } catch (e) {
    sql = e instanceof ApiError && e.status !== 0 && e.status !== 404 && e.status !== 405;
  }
  let watch = false;
  try {
    const docs = await api.get('/v3/api-docs', { record: false });
    watch = Boolean(docs && docs.paths && docs.paths['/v1/indexes/{name}/changes']);
  } catch {
    watch = false;
  }
  return { sql, watch };
}
