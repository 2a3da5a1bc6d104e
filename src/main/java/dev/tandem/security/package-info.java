/**
 * Principals, tokens, SCRAM, grants, per-principal limits, the login throttle and the audit log.
 *
 * <p>May import: controller, sql.
 */
package dev.tandem.security;
