package dev.tandem.sql;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.Controller;
import dev.tandem.row.DatumType;
import dev.tandem.sql.catalog.PgSettings;
import java.util.List;
import java.util.Locale;
import reactor.core.publisher.Mono;

/** The statements that read or change a session's settings and list the catalog: {@code SHOW} and {@code SET}. */
final class SessionStatements {

    private final Controller controller;

    SessionStatements(Controller controller) {
        this.controller = controller;
    }

    Prepared show(String sql, SqlLexer lex, String fingerprint) {
        lex.expect("show");
        SqlLexer.Token what = lex.take();
        List<SqlColumn> nameCol = List.of(new SqlColumn("name", DatumType.STRING));
        switch (what.text()) {
            case "tables", "views" -> {
                lex.end();
                Class<? extends CatalogEntry> kind = what.text().equals("tables") ? CatalogEntry.Table.class : CatalogEntry.View.class;
                return Prepared.rows(sql, fingerprint, nameCol, (p, s) -> Mono.fromSupplier(() -> SqlResult.rows("SHOW", nameCol,
                        controller.catalog().stream().filter(e -> kind.isInstance(e) && s.sees(e.name())).map(e -> new Object[] {e.name()})
                                .sorted(java.util.Comparator.comparing(a -> (String) a[0])).toList())));
            }
            case "indexes", "indices" -> {
                String on = null;
                if (lex.accept("from") || lex.accept("on") || lex.accept("in")) {
                    on = lex.name("a table or view name");
                }
                lex.end();
                String target = on;
                List<SqlColumn> cols = List.of(new SqlColumn("name", DatumType.STRING), new SqlColumn("on", DatumType.STRING),
                        new SqlColumn("key", DatumType.STRING));
                return Prepared.rows(sql, fingerprint, cols, (p, s) -> Mono.fromSupplier(() -> SqlResult.rows("SHOW", cols,
                        controller.catalog().stream().filter(e -> e instanceof CatalogEntry.Index i && (target == null || i.on().equals(target))
                                        && s.sees(i.name()))
                                .map(e -> (CatalogEntry.Index) e)
                                .sorted(java.util.Comparator.comparing(CatalogEntry.Index::name))
                                .map(i -> new Object[] {i.name(), i.on(), String.join(", ", i.key())}).toList())));
            }
            case "columns" -> {
                if (!lex.accept("from")) {
                    lex.expect("in");
                }
                String of = lex.name("a table or view name");
                lex.end();
                List<SqlColumn> cols = List.of(new SqlColumn("name", DatumType.STRING), new SqlColumn("nullable", DatumType.BOOL),
                        new SqlColumn("type", DatumType.STRING));
                return Prepared.rows(sql, fingerprint, cols, (p, s) -> Mono.fromSupplier(() -> {
                    CatalogEntry e = controller.catalog().stream().filter(x -> x.name().equals(of) && s.sees(of)).findFirst()
                            .orElseThrow(() -> new SqlException(SqlException.UNDEFINED_TABLE, "relation \"" + of + "\" does not exist"));
                    return SqlResult.rows("SHOW", cols, e.schema().columns().stream()
                            .map(c -> new Object[] {c.name(), c.nullable(), SqlTypes.pgName(c.type())}).toList());
                }));
            }
            case "transaction_isolation", "transaction" -> {
                if (what.text().equals("transaction")) {
                    lex.expect("isolation");
                    lex.expect("level");
                }
                lex.end();
                List<SqlColumn> cols = List.of(new SqlColumn("transaction_isolation", DatumType.STRING));
                return Prepared.rows(sql, fingerprint, cols, (p, s) -> Mono.just(SqlResult.rows("SHOW", cols, List.<Object[]>of(new Object[] {s.isolationName()}))));
            }
            case "all" -> {
                lex.end();
                List<SqlColumn> cols = List.of(new SqlColumn("name", DatumType.STRING), new SqlColumn("setting", DatumType.STRING),
                        new SqlColumn("description", DatumType.STRING));
                return Prepared.rows(sql, fingerprint, cols, (p, s) -> {
                    List<Object[]> all = new java.util.ArrayList<>();
                    for (PgSettings.Setting setting : PgSettings.ALL) {
                        all.add(new Object[] {setting.name(), setting.name().equals("TimeZone") ? s.zone().name() : setting.value(),
                                setting.description()});
                    }
                    all.add(new Object[] {"transaction_isolation", s.isolationName(), "Sets the current transaction's isolation level."});
                    all.sort(java.util.Comparator.comparing(a -> ((String) a[0]).toLowerCase(Locale.ROOT)));
                    return Mono.just(SqlResult.rows("SHOW", cols, all));
                });
            }
            default -> {
                // SHOW time zone is SHOW timezone
                String name = what.text().equals("time") && lex.accept("zone") ? "timezone" : what.text();
                lex.end();
                PgSettings.Setting setting = PgSettings.find(name);
                if (setting == null) {
                    throw PgSettings.unrecognized(name);
                }
                List<SqlColumn> cols = List.of(new SqlColumn(setting.name(), DatumType.STRING));
                boolean zone = setting.name().equals("TimeZone");
                return Prepared.rows(sql, fingerprint, cols, (p, s) -> Mono.just(SqlResult.rows("SHOW", cols,
                        List.<Object[]>of(new Object[] {zone ? s.zone().name() : setting.value()}))));
            }
        }
    }

    /**
     * {@code SET TimeZone}'s value, after {@code SET TIME ZONE} or {@code SET TimeZone TO}: a zone's name or a POSIX
     * specification (quoted, or a word), a number of hours east, {@code INTERVAL '+02:00' HOUR TO MINUTE}, or
     * {@code LOCAL}/{@code DEFAULT} (the session's default zone).
     */
    private static Prepared timeZone(String sql, SqlLexer lex, String fingerprint) {
        dev.tandem.expr.TimeZones.Zone zone;
        try {
            SqlLexer.Token t = lex.take();
            if (t.is("local") || t.is("default")) {
                lex.end();
                return Prepared.utility(sql, fingerprint, (p, s) -> {
                    s.zone(s.defaultZone());
                    return Mono.just(SqlResult.command("SET"));
                });
            }
            if (t.is("interval") && lex.peek().kind() == SqlLexer.Kind.STRING) {
                String text = lex.take().text();
                String unit = lex.peek().kind() == SqlLexer.Kind.WORD ? lex.peek().text() : "";
                while (lex.peek().kind() == SqlLexer.Kind.WORD) {
                    lex.take();
                }
                String quantity = text.trim().matches("[+-]?\\d+(\\.\\d*)?") && !unit.isEmpty() ? text.trim() + " " + unit : text;
                dev.tandem.row.Interval v = dev.tandem.expr.Intervals.parse(quantity);
                if (v.months() != 0 || v.days() != 0 || v.micros() % 1_000_000L != 0) {
                    throw new SqlException(SqlException.INVALID_PARAMETER, "invalid interval value for time zone: " + text);
                }
                zone = dev.tandem.expr.TimeZones.offset(Math.toIntExact(v.micros() / 1_000_000L));
            } else if (t.isPunct("-") || t.isPunct("+") || t.kind() == SqlLexer.Kind.NUMBER) {
                String number = t.kind() == SqlLexer.Kind.NUMBER ? t.text() : t.text() + lex.take().text();
                zone = dev.tandem.expr.TimeZones.hours(new java.math.BigDecimal(number));
            } else if (t.kind() == SqlLexer.Kind.STRING || t.kind() == SqlLexer.Kind.WORD || t.kind() == SqlLexer.Kind.QUOTED) {
                zone = dev.tandem.expr.TimeZones.setting(t.text());
            } else {
                throw lex.error("a time zone", t);
            }
        } catch (dev.tandem.expr.EvalError e) {
            throw SqlErrors.evaluation(e);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new SqlException(SqlException.INVALID_PARAMETER, "invalid value for parameter \"TimeZone\"");
        }
        lex.end();
        dev.tandem.expr.TimeZones.Zone chosen = zone;
        return Prepared.utility(sql, fingerprint, (p, s) -> {
            s.zone(chosen);
            return Mono.just(SqlResult.command("SET"));
        });
    }

    /** {@code RESET name} / {@code RESET TIME ZONE} / {@code RESET ALL}: the setting back to the session's default. */
    Prepared reset(String sql, SqlLexer lex, String fingerprint) {
        lex.expect("reset");
        String name = lex.name("a setting");
        if (name.equals("time")) {
            lex.expect("zone");
            name = "timezone";
        }
        lex.end();
        switch (name) {
            case "timezone", "all" -> {
                return Prepared.utility(sql, fingerprint, (p, s) -> {
                    s.zone(s.defaultZone());
                    return Mono.just(SqlResult.command("RESET"));
                });
            }
            case "application_name" -> {
                return Prepared.utility(sql, fingerprint, (p, s) -> {
                    s.applicationName(null);
                    return Mono.just(SqlResult.command("RESET"));
                });
            }
            default -> {
                PgSettings.Setting setting = PgSettings.find(name);
                if (setting == null) {
                    throw PgSettings.unrecognized(name);
                }
                if (!setting.settable()) {
                    throw new SqlException(SqlState.CANT_CHANGE_RUNTIME_PARAM, "parameter \"" + name + "\" cannot be changed");
                }
                return Prepared.utility(sql, fingerprint, (p, s) -> Mono.just(SqlResult.command("RESET")));
            }
        }
    }

    Prepared set(String sql, SqlLexer lex, String fingerprint) {
        lex.expect("set");
        if (lex.accept("session")) {
            if (lex.peek().is("characteristics")) {
                throw SqlException.notSupported("SET SESSION CHARACTERISTICS (use SET transaction_isolation)");
            }
        }
        boolean local = lex.accept("local");
        String name = lex.name("a setting");
        if (name.equals("tandem") && lex.acceptPunct(".")) {
            name = name + "." + lex.name("a setting");
        }
        if (name.equals("time") && lex.accept("zone")) {
            name = "timezone";
        } else if (!lex.acceptPunct("=")) {
            lex.expect("to");
        }
        if (name.equals("timezone")) {
            if (local) {
                throw SqlException.notSupported("SET LOCAL TimeZone (set the session's: SET TimeZone)");
            }
            return timeZone(sql, lex, fingerprint);
        }
        SqlLexer.Token value = lex.take();
        StringBuilder v = new StringBuilder(value.text());
        while (lex.peek().kind() == SqlLexer.Kind.WORD) {
            v.append(' ').append(lex.take().text());
        }
        lex.end();
        String val = v.toString().toLowerCase(Locale.ROOT);
        switch (name) {
            case "transaction_isolation" -> {
                boolean strict = switch (val) {
                    case "strict serializable" -> true;
                    case "serializable" -> false;
                    default -> throw new SqlException(SqlException.INVALID_PARAMETER, "invalid value for parameter \"transaction_isolation\": \""
                            + val + "\" (Tandem offers 'serializable' and 'strict serializable')");
                };
                return Prepared.utility(sql, fingerprint, (p, s) -> {
                    s.strict(strict);
                    return Mono.just(SqlResult.command("SET"));
                });
            }
            case "tandem.after_lsn" -> {
                String lsn = value.text().trim();
                if (!lsn.isEmpty() && !lsn.matches("[0-9A-Fa-f]{1,8}/[0-9A-Fa-f]{1,8}")) {
                    throw new SqlException(SqlException.INVALID_PARAMETER, "invalid value for parameter \"tandem.after_lsn\": \"" + lsn
                            + "\" (an upstream position as pg_current_wal_lsn() prints it, e.g. '0/16B3748'; '' to stop waiting)");
                }
                return Prepared.utility(sql, fingerprint, (p, s) -> {
                    s.afterLsn(lsn.isEmpty() ? null : lsn);
                    return Mono.just(SqlResult.command("SET"));
                });
            }
            case "application_name" -> {
                String application = value.text();
                return Prepared.utility(sql, fingerprint, (p, s) -> {
                    s.applicationName(application);
                    return Mono.just(SqlResult.command("SET"));
                });
            }
            case "extra_float_digits", "client_min_messages", "statement_timeout", "search_path" -> {
                return Prepared.utility(sql, fingerprint, (p, s) -> Mono.just(SqlResult.command("SET")));
            }
            case "client_encoding", "names" -> {
                if (!val.equals("utf8") && !val.equals("utf-8") && !val.equals("unicode")) {
                    throw SqlException.notSupported("client encoding " + val + " (only UTF8)");
                }
                return Prepared.utility(sql, fingerprint, (p, s) -> Mono.just(SqlResult.command("SET")));
            }
            default -> {
                PgSettings.Setting setting = PgSettings.find(name);
                if (setting == null) {
                    throw PgSettings.unrecognized(name);
                }
                if (!setting.settable()) {
                    throw new SqlException(SqlState.CANT_CHANGE_RUNTIME_PARAM, "parameter \"" + name + "\" cannot be changed");
                }
                // Tandem has one value of each (DateStyle, IntervalStyle, bytea_output...): SET to it is accepted, another is refused
                String want = setting.value().toLowerCase(Locale.ROOT).replace(" ", "");
                if (!val.replace(" ", "").equals(want) && !(setting.type().equals("bool") && PgSettings.sameBool(val, setting.value()))) {
                    throw SqlException.notSupported(setting.name() + " " + val + " (Tandem's is " + setting.value() + ")");
                }
                return Prepared.utility(sql, fingerprint, (p, s) -> Mono.just(SqlResult.command("SET")));
            }
        }
    }
}
