// What the server offers beyond the core API, found out by asking it (never assumed).

/**
 * {sql, watch}: read from the server's OpenAPI description, which lists every route it serves: SQL when it
 * has POST /v1/sql, watch when it has an index change stream. Null while the description cannot be read
 * (e.g. a token is needed first): the caller asks again later.
 */
export async function detectFeatures(api) {
  try {
    const docs = await api.get('/v3/api-docs', { record: false });
    const paths = (docs && docs.paths) || {};
    return { sql: Boolean(paths['/v1/sql']?.post), watch: Boolean(paths['/v1/indexes/{name}/changes']?.get) };
  } catch {
    return null;
  }
}
