/**
 * Spring wiring: properties, the beans that assemble storage, runtimes, controller, SQL engine, wire protocol and sources.
 *
 * <p>May import: every package it assembles.
 */
package dev.tandem.config;
