package dev.tandem.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.expr.EvalError;
import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.expr.Mfp;
import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.plan.RandomPlans;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.row.Timestamp;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Every command and response survives write-then-parse unchanged, and writing is stable. */
class ProtocolJsonProperties {

    @Property(tries = 500)
    void commandsRoundTrip(@ForAll("commands") ComputeCommand command) {
        String json = ProtocolJson.write(command);
        ComputeCommand parsed = ProtocolJson.parseCommand(json);
        assertThat(parsed).isEqualTo(command);
        assertThat(ProtocolJson.write(parsed)).isEqualTo(json);
    }

    @Property(tries = 500)
    void responsesRoundTrip(@ForAll("responses") ComputeResponse response) {
        String json = ProtocolJson.write(response);
        ComputeResponse parsed = ProtocolJson.parseResponse(json);
        assertThat(parsed).isEqualTo(response);
        assertThat(ProtocolJson.write(parsed)).isEqualTo(json);
    }

    @Property(tries = 300)
    void peeksRoundTripTheirKeysDatumForDatum(@ForAll("peeks") ComputeCommand.Peek peek) {
        ComputeCommand.Peek parsed = (ComputeCommand.Peek) ProtocolJson.parseCommand(ProtocolJson.write(peek));
        assertThat(parsed.literalKeys() == null).isEqualTo(peek.literalKeys() == null);
        if (peek.literalKeys() != null) {
            assertThat(parsed.literalKeys()).hasSameSizeAs(peek.literalKeys());
            for (int r = 0; r < peek.literalKeys().size(); r++) {
                assertSameDatums(parsed.literalKeys().get(r), peek.literalKeys().get(r));
            }
        }
    }

    @Property(tries = 300)
    void resultRowsRoundTripDatumForDatum(@ForAll("rowResults") ComputeResponse.PeekResponse response) {
        ComputeResponse.PeekResponse parsed = (ComputeResponse.PeekResponse) ProtocolJson.parseResponse(ProtocolJson.write(response));
        List<Row> expected = ((ComputeResponse.Rows) response.result()).rows();
        List<Row> actual = ((ComputeResponse.Rows) parsed.result()).rows();
        assertThat(actual).hasSameSizeAs(expected);
        for (int r = 0; r < expected.size(); r++) {
            assertSameDatums(actual.get(r), expected.get(r));
        }
    }

    /**
     * Types (also of NULLs) and values agree, and so do the encoded rows; NaN equals NaN, and a -0.0 was
     * packed as 0.0 (PostgreSQL's float8: one value), so it travels as 0.0 and reads back as 0.0.
     */
    private static void assertSameDatums(Row actual, Row expected) {
        assertThat(actual.arity()).isEqualTo(expected.arity());
        for (int i = 0; i < expected.arity(); i++) {
            assertThat(actual.typeAt(i)).isEqualTo(expected.typeAt(i));
            assertThat(actual.get(i)).isEqualTo(expected.get(i));
            if (actual.get(i) instanceof Double d && d == 0.0) {
                assertThat(Double.doubleToRawLongBits(d)).as("no -0.0 after packing").isZero();
            }
        }
        assertThat(actual).isEqualTo(expected);
    }

    // ---- generators

    @Provide
    Arbitrary<ComputeCommand> commands() {
        return Arbitraries.oneOf(
                texts().map(ComputeCommand.Hello::new),
                Combinators.combine(Arbitraries.maps(texts(), texts()).ofMaxSize(3), parameters()).as(ComputeCommand.CreateInstance::new),
                Arbitraries.just(new ComputeCommand.InitializationComplete()),
                parameters().map(ComputeCommand.UpdateConfiguration::new),
                dataflows().map(ComputeCommand.CreateDataflow::new),
                texts().map(ComputeCommand.Schedule::new),
                Combinators.combine(texts(), frontiers()).as(ComputeCommand.AllowCompaction::new),
                peeks().map(p -> p),
                uuids().map(ComputeCommand.CancelPeek::new));
    }

    @Provide
    Arbitrary<ComputeResponse> responses() {
        return Arbitraries.oneOf(
                Combinators.combine(texts(), frontiers(), frontiers()).as(ComputeResponse.Frontiers::new),
                rowResults().map(r -> r),
                Combinators.combine(uuids(), Arbitraries.of(ComputeResponse.ErrorKind.class), texts(), Arbitraries.of(EvalError.Code.class))
                        .as((u, k, m, c) -> new ComputeResponse.PeekResponse(u, k == ComputeResponse.ErrorKind.FAILED
                                ? ComputeResponse.Error.failed(c, m) : new ComputeResponse.Error(k, m))),
                uuids().map(u -> new ComputeResponse.PeekResponse(u, new ComputeResponse.Canceled())),
                Combinators.combine(Arbitraries.of(ComputeResponse.StatusKind.class), texts().injectNull(0.3), texts().injectNull(0.3))
                        .as(ComputeResponse.Status::new));
    }

    @Provide
    Arbitrary<ComputeCommand.Peek> peeks() {
        Arbitrary<List<Row>> keys = typedRows().injectNull(0.3);
        Arbitrary<Long> maxRows = Arbitraries.longs().greaterOrEqual(0).injectNull(0.5);
        return Combinators.combine(uuids(), texts(), times(), keys, mfps(), finishings(), maxRows)
                .as(ComputeCommand.Peek::new);
    }

    @Provide
    Arbitrary<ComputeResponse.PeekResponse> rowResults() {
        Arbitrary<ComputeResponse.ReadInfo> info = Combinators.combine(times(), frontiers(), frontiers(),
                Arbitraries.of(true, false), Arbitraries.of("maintenance", "interactive", "solo").injectNull(0.2))
                .as(ComputeResponse.ReadInfo::new);
        return Combinators.combine(uuids(), typedRows(), info)
                .as((u, rows, i) -> new ComputeResponse.PeekResponse(u, new ComputeResponse.Rows(rows, i)));
    }

    private static Arbitrary<String> texts() {
        return Arbitraries.oneOf(
                Arbitraries.strings().withCharRange('\u0000', '\uD7FF').ofMaxLength(8),
                Arbitraries.of("", "u1", "\"quoted\"", "back\\slash", "日本", "\uD83D\uDE00", "a\u0000b", "line\nbreak"));
    }

    private static Arbitrary<UUID> uuids() {
        return Arbitraries.randomValue(r -> new UUID(r.nextLong(), r.nextLong()));
    }

    private static Arbitrary<Long> times() {
        return Arbitraries.oneOf(Arbitraries.longs().between(0, 1000), Arbitraries.longs().greaterOrEqual(0),
                Arbitraries.of(0L, (1L << 53) + 1, Long.MAX_VALUE));
    }

    private static Arbitrary<Frontier> frontiers() {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(1, Arbitraries.just(Frontier.EMPTY)),
                net.jqwik.api.Tuple.of(3, times().map(Frontier::at)));
    }

    private static Arbitrary<ComputeParameters> parameters() {
        return Arbitraries.longs().greaterOrEqual(0).injectNull(0.4).map(ComputeParameters::new);
    }

    static Arbitrary<Object> valuesOf(DatumType type) {
        Arbitrary<Object> v = switch (type) {
            case BOOL -> Arbitraries.of(true, false).map(b -> (Object) b);
            case INT64 -> Arbitraries.oneOf(Arbitraries.longs(),
                    Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L, 1L << 53, (1L << 53) + 1, -(1L << 53) - 1)).map(l -> (Object) l);
            case FLOAT64 -> Arbitraries.oneOf(Arbitraries.doubles(),
                    Arbitraries.of(Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
                            Double.MIN_VALUE, -Double.MAX_VALUE, 1e300, 0.1)).map(d -> (Object) d);
            case STRING -> texts().map(s -> (Object) s);
            case TIMESTAMP -> Arbitraries.longs().between(-62_135_596_800_000_000L, 253_402_300_799_999_999L).map(m -> (Object) new Timestamp(m));
            case NUMERIC -> Arbitraries.longs().map(l -> (Object) java.math.BigDecimal.valueOf(l, (int) Math.floorMod(l, 7L)));
            case DATE -> Arbitraries.longs().between(-719_162L, 2_932_896L).map(d -> (Object) java.time.LocalDate.ofEpochDay(d));
            case TIMESTAMPTZ -> Arbitraries.longs().between(-62_135_596_800_000_000L, 253_402_300_799_999_999L)
                    .map(m -> (Object) new dev.tandem.row.TimestampTz(m));
            case UUID -> Combinators.combine(Arbitraries.longs(), Arbitraries.longs()).as((a, b) -> (Object) new java.util.UUID(a, b));
            case INTERVAL -> Combinators.combine(Arbitraries.integers(), Arbitraries.integers(), Arbitraries.longs())
                    .as((m, d, u) -> (Object) new dev.tandem.row.Interval(m, d, u));
            case JSONB -> Arbitraries.of("null", "1.50", "\"a\\u0001\"", "[]", "{}", "[1, [2, {\"a\": true}]]", "{\"b\": null, \"aa\": -1e3}")
                    .map(s -> (Object) dev.tandem.row.Jsonb.parse(s));
            case BYTEA -> Arbitraries.bytes().array(byte[].class).ofMaxSize(6).map(b -> (Object) new dev.tandem.row.Bytea(b));
            case TIME -> Arbitraries.longs().between(0, dev.tandem.row.TimeOfDay.MICROS_PER_DAY).map(m -> (Object) new dev.tandem.row.TimeOfDay(m));
            case BOOL_ARRAY, INT64_ARRAY, FLOAT64_ARRAY, STRING_ARRAY, TIMESTAMP_ARRAY, NUMERIC_ARRAY, DATE_ARRAY, TIMESTAMPTZ_ARRAY, UUID_ARRAY -> valuesOf(type.element()).list().ofMaxSize(3).map(l -> (Object) new dev.tandem.row.DatumArray(type.element(), l));
        };
        return v.injectNull(0.15);
    }

    /** A list of up to 5 rows of one random list of up to 4 column types. */
    private static Arbitrary<List<Row>> typedRows() {
        return Arbitraries.of(DatumType.class).list().ofMaxSize(4).flatMap(types -> {
            List<Arbitrary<Object>> cols = new ArrayList<>();
            types.forEach(t -> cols.add(valuesOf(t)));
            Arbitrary<Row> row = Combinators.combine(cols).as(values -> Row.pack(types, values));
            return row.list().ofMaxSize(5);
        });
    }

    private static Arbitrary<Expr> exprs() {
        Arbitrary<Expr> col = Arbitraries.integers().between(0, 5).map(Expr.Col::new);
        Arbitrary<Expr> lit = Arbitraries.of(DatumType.class).flatMap(t -> valuesOf(t).map(v -> new Expr.Lit(v, t)));
        Arbitrary<Expr> leaf = Arbitraries.oneOf(col, lit);
        Arbitrary<Expr> call = Combinators.combine(Arbitraries.of(Func.EQ, Func.ADD, Func.CONCAT), leaf, leaf)
                .as((f, a, b) -> new Expr.Call(f, List.of(a, b), null));
        Arbitrary<Expr> cast = Combinators.combine(leaf, Arbitraries.of(DatumType.class))
                .as((a, t) -> new Expr.Call(Func.CAST, List.of(a), t));
        return Arbitraries.oneOf(leaf, call, cast);
    }

    private static Arbitrary<Mfp> mfps() {
        Arbitrary<List<Integer>> project = Arbitraries.integers().between(0, 5).list().ofMaxSize(3).injectNull(0.5);
        return Combinators.combine(exprs().list().ofMaxSize(2), exprs().list().ofMaxSize(2), project).as(Mfp::new);
    }

    private static Arbitrary<Finishing> finishings() {
        Arbitrary<Plan.Ordering> ordering = Combinators.combine(Arbitraries.integers().between(0, 5), Arbitraries.of(true, false),
                Arbitraries.of(true, false)).as(Plan.Ordering::new);
        return Combinators.combine(ordering.list().ofMaxSize(3), Arbitraries.longs().greaterOrEqual(0).injectNull(0.5),
                Arbitraries.longs().between(0, 100)).as(Finishing::new);
    }

    /** A dataflow over a random plan of {@link RandomPlans}: its inputs as source imports, one index import, one export. */
    private static Arbitrary<DataflowDescription> dataflows() {
        return Combinators.combine(RandomPlans.scenarios(false), times(), times().injectNull(0.5), Arbitraries.of(true, false))
                .as((scenario, asOf, until, withIndex) -> {
                    Map<String, Schema> sources = new LinkedHashMap<>();
                    scenario.types().forEach((id, types) -> sources.put(id, Schema.ofTypes(types)));
                    Map<String, DataflowDescription.IndexImport> indexes = new LinkedHashMap<>();
                    if (withIndex) {
                        indexes.put("u7", new DataflowDescription.IndexImport("u3", List.of(0), Schema.ofTypes(List.of(DatumType.INT64))));
                    }
                    return new DataflowDescription(sources, indexes,
                            List.of(new DataflowDescription.BuildDesc("t1", scenario.plan())),
                            List.of(new DataflowDescription.IndexExport("u9", "t1", List.of(0))),
                            asOf, until);
                });
    }
}
