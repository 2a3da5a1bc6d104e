package dev.tandem.controller;

import java.util.List;

/**
 * The catalog's served entries at one moment, with its version: a number that grows with every change
 * to them (a definition, a drop, what another replica's changes brought), so a plan checked against one
 * version need not be checked again until the version moves.
 */
public record CatalogSnapshot(long version, List<CatalogEntry> entries) {
}
