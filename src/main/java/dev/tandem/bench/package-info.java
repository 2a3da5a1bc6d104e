/**
 * Tandem's own load generators and the comparison with PostgreSQL (`tandem bench ...`), run against child server processes.
 *
 * <p>May import: nothing of Tandem's own code: it drives a server over its public surfaces only.
 */
package dev.tandem.bench;
