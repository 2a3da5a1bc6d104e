package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.api.TandemServer.Response;
import dev.tandem.security.AccessTable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Sends well over a thousand random malformed or invalid requests to every endpoint (seeded, loopback
 * only): none may yield a 5xx, every error must be problem+json with a detail, and the catalog and
 * the data must be unchanged afterwards. Every generated write, create and drop is invalid by
 * construction; generated reads may be valid (they change nothing).
 */
class ApiFuzzTest {

    static final int REQUESTS = 1500;
    static final long SEED = Long.getLong("tandem.fuzz.seed", 6L);
    static final JsonNodeFactory F = JsonNodeFactory.instance;

    @TempDir
    Path dir;

    record Req(HttpMethod method, String uri, MediaType type, byte[] body) {
        @Override
        public String toString() {
            String b = body == null ? "" : new String(body, StandardCharsets.UTF_8);
            return method + " " + uri + " [" + type + "] " + (b.length() > 300 ? b.substring(0, 300) + "..." : b);
        }
    }

    final Random rnd = new Random(SEED);

    /** Requests of the run with credentials (each from a random caller). */
    static final int SECURED_REQUESTS = 500;

    @Test
    @Timeout(120)
    void randomInvalidRequestsGetProblemsNeverServerErrorsAndChangeNothing() {
        try (TandemServer s = new TandemServer(dir, Map.of("tandem.api.max-body-bytes", "64KB"))) {
            fuzz(s, REQUESTS, req -> s.call(s.oneShot, req.method(), req.uri(), req.type(), req.body()), r -> null);
        }
    }

    /**
     * The same with credentials: each request from a random caller (none, or a token of one role). No
     * 5xx, every error a problem, nothing changed, and a caller whose roles do not cover the route (or
     * any caller of an undeclared route) is refused: 401 without credentials, else 403 (or 400 when the
     * firewall rejects the path before anyone is asked).
     */
    @Test
    @Timeout(120)
    void withCredentialsNoRequestGetsPastItsRoleOrAServerError() {
        try (SecuredServer secured = new SecuredServer(dir, Map.of("tandem.api.max-body-bytes", "64KB"))) {
            String[] caller = new String[1];
            fuzz(secured.server, SECURED_REQUESTS, req -> {
                caller[0] = pick(null, "reader", "writer", "admin", "replica");
                return secured.server.call(secured.as(caller[0]), req.method(), req.uri(), req.type(), req.body());
            }, r -> {
                AccessTable.Route route = route(lastRequest);
                boolean allowed = route != null && AccessMatrixTest.expected(route.role(), caller[0]) == 0;
                int refusal = caller[0] == null ? 401 : 403;
                boolean rejectedFirst = r.status() == 400 && r.json() != null
                        && r.json().path("type").asString("").endsWith("/" + ApiSecurity.REJECTED);
                if (!allowed && r.status() != refusal && !rejectedFirst) {
                    return "not refused (" + refusal + ") as " + caller[0] + ": " + r.status() + " for " + lastRequest + " → " + r.text();
                }
                return null;
            });
        }
    }

    /** The declared route a request falls under (the first matching, as the server matches them), or null. */
    static AccessTable.Route route(Req req) {
        String path = req.uri().contains("?") ? req.uri().substring(0, req.uri().indexOf('?')) : req.uri();
        org.springframework.http.server.PathContainer container = org.springframework.http.server.PathContainer.parsePath(path);
        return ApiAccess.TABLE.routes().stream().filter(r -> r.method().equals(req.method().name())
                && org.springframework.web.util.pattern.PathPatternParser.defaultInstance.parse(r.pattern()).matches(container))
                .findFirst().orElse(null);
    }

    /** The request being checked. */
    Req lastRequest;

    /**
     * Sets up tables, views and indexes through {@code s}'s own client, sends {@code requests} random
     * requests through {@code send}, and checks each answer (plus {@code check}, which returns a failure or
     * null) and that nothing changed.
     */
    void fuzz(TandemServer s, int requests, java.util.function.Function<Req, Response> send, java.util.function.Function<Response, String> check) {
        {
            s.post("/v1/tables", "{\"name\":\"orders\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\",\"nullable\":false},"
                    + "{\"name\":\"customer\",\"type\":\"int64\"},{\"name\":\"amount\",\"type\":\"float64\"}]}");
            s.post("/v1/tables", "{\"name\":\"customers\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\"},{\"name\":\"name\",\"type\":\"string\"},"
                    + "{\"name\":\"vip\",\"type\":\"bool\"}]}");
            s.post("/v1/tables/orders/rows", "{\"insert\":[[1,10,1.5],[2,10,2.5],[3,20,null]]}");
            s.post("/v1/tables/customers/rows", "{\"insert\":[[10,\"ada\",true],[20,\"bob\",false]]}");
            s.post("/v1/views", "{\"name\":\"big\",\"plan\":{\"op\":\"mfp\",\"input\":{\"op\":\"get\",\"name\":\"orders\"},\"filter\":[{\"call\":\"gt\",\"args\":[{\"col\":0},{\"lit\":1}]}]}}");
            s.post("/v1/indexes", "{\"name\":\"orders_by_id\",\"on\":\"orders\",\"key\":[\"id\"]}");
            s.post("/v1/indexes", "{\"name\":\"customers_by_name\",\"on\":\"customers\",\"key\":[\"name\"]}");
            s.post("/v1/indexes", "{\"name\":\"big_by_id\",\"on\":\"big\",\"key\":[\"id\"]}");
            ApiJourneyTest.awaitHydrated(s, "orders_by_id");
            ApiJourneyTest.awaitHydrated(s, "customers_by_name");
            ApiJourneyTest.awaitHydrated(s, "big_by_id");
            String before = snapshot(s);

            Map<Integer, Integer> statuses = new TreeMap<>();
            List<String> failures = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                Req req = request();
                lastRequest = req;
                Response r;
                try {
                    // Each malformed request on its own connection, so that one cannot disturb the next.
                    r = send.apply(req);
                } catch (IllegalStateException timeout) {
                    failures.add("no answer within 30 s: " + req);
                    break;
                }
                statuses.merge(r.status(), 1, Integer::sum);
                String failure = check.apply(r);
                if (failure != null) {
                    failures.add(failure);
                }
                if (r.status() >= 500) {
                    failures.add(r.status() + " for " + req + " → " + r.text());
                } else if (r.status() >= 400 && (!r.isProblem() || r.json() == null || r.json().path("detail").asString("").isBlank()
                        || r.json().path("status").intValue() != r.status() || r.json().path("type").asString("").isBlank())) {
                    failures.add("not a problem: " + r.status() + " " + r.contentType() + " for " + req + " → " + r.text());
                } else if (r.status() < 300 && !read) {
                    failures.add("accepted: " + r.status() + " for " + req + " → " + r.text());
                }
            }
            System.out.println("fuzz: " + requests + " requests, seed " + SEED + ", statuses " + statuses);
            assertThat(failures).isEmpty();
            assertThat(snapshot(s)).isEqualTo(before);
        }
    }

    /** The catalog and the data: tables (with their records), views, indexes (without moving frontiers) and index contents. */
    static String snapshot(TandemServer s) {
        StringBuilder b = new StringBuilder();
        for (JsonNode t : s.get("/v1/tables").json()) {
            ObjectNode o = (ObjectNode) t.deepCopy();
            o.remove("write_frontier");
            o.remove("since");
            b.append(o).append('\n');
        }
        b.append(s.get("/v1/views").text()).append('\n');
        for (JsonNode i : s.get("/v1/indexes").json()) {
            ObjectNode o = (ObjectNode) i.deepCopy();
            o.remove("write_frontier");
            o.remove("since");
            b.append(o).append('\n');
        }
        for (String index : List.of("orders_by_id", "customers_by_name", "big_by_id")) {
            b.append(s.post("/v1/peek", "{\"from\":\"" + index + "\",\"isolation\":\"strict\"}").json().get("rows")).append('\n');
        }
        return b.toString();
    }

    // ------------------------------------------------------------------ generators

    /** Whether a request only reads (a valid one may be answered 200). */
    boolean read;

    Req request() {
        read = false;
        // one request in a hundred is a deep statement: each costs the planner its whole stack
        int kind = rnd.nextInt(100) == 0 ? 14 : rnd.nextInt(14);
        return switch (kind) {
            case 0 -> post(pick("/v1/tables", "/v1/views", "/v1/indexes", "/v1/peek", "/v1/tables/orders/rows", "/v1/sql"), randomJson(3));
            case 1 -> rawBody();
            case 2 -> new Req(HttpMethod.POST, pick("/v1/tables", "/v1/peek", "/v1/indexes", "/v1/tables/orders/rows", "/v1/sql"),
                    pickType(), validTableBody().getBytes(StandardCharsets.UTF_8));
            case 3 -> post("/v1/tables", badTable());
            case 4 -> post("/v1/views", badView());
            case 5 -> post("/v1/indexes", badIndex());
            case 6 -> badWrite();
            case 7, 8 -> {
                read = true;
                yield post("/v1/peek", peek());
            }
            case 9 -> {
                read = true;
                yield lookup();
            }
            case 10 -> {
                read = true;
                yield new Req(HttpMethod.GET, pick("/v1/tables/", "/v1/views/", "/v1/indexes/") + badName(), null, null);
            }
            case 11 -> new Req(HttpMethod.DELETE, pick("/v1/tables/", "/v1/views/", "/v1/indexes/") + safeDropTarget(), null, null);
            case 12 -> wrongMethodOrPath();
            case 13 -> oversized();
            default -> deepSql();
        };
    }

    /**
     * A SQL statement nested past what Tandem plans or stores (each must be refused, {@code 54001}, and change
     * nothing): thousands of parentheses, a chain of a thousand or more CTEs, a view expression or a CASE
     * nested hundreds deep.
     */
    Req deepSql() {
        String sql = switch (rnd.nextInt(4)) {
            case 0 -> {
                int depth = 3_000 + rnd.nextInt(1_000);
                yield "SELECT " + "(".repeat(depth) + "1" + ")".repeat(depth);
            }
            case 1 -> {
                int n = 1_000 + rnd.nextInt(200);
                StringBuilder b = new StringBuilder("WITH c0 AS (SELECT 1 AS x)");
                for (int i = 1; i < n; i++) {
                    b.append(", c").append(i).append(" AS (SELECT x + 1 AS x FROM c").append(i - 1).append(')');
                }
                yield b.append(" SELECT x FROM c").append(n - 1).toString();
            }
            case 2 -> {
                String e = "id";
                for (int i = 300 + rnd.nextInt(300); i > 0; i--) {
                    e = "(" + e + " + 1)";
                }
                yield "CREATE VIEW deep_" + rnd.nextInt(1000) + " AS SELECT " + e + " AS y FROM orders";
            }
            default -> {
                String e = "1";
                for (int i = 3_000 + rnd.nextInt(500); i > 0; i--) {
                    e = "CASE WHEN id > " + i + " THEN " + e + " ELSE 0 END";
                }
                yield "SELECT " + e + " FROM orders";
            }
        };
        ObjectNode body = F.objectNode();
        body.put("sql", sql);
        return post("/v1/sql", body);
    }

    Req post(String path, JsonNode body) {
        return new Req(HttpMethod.POST, path, MediaType.APPLICATION_JSON, body.toString().getBytes(StandardCharsets.UTF_8));
    }

    Req post(String path, String body) {
        return new Req(HttpMethod.POST, path, MediaType.APPLICATION_JSON, body.getBytes(StandardCharsets.UTF_8));
    }

    @SafeVarargs
    final <T> T pick(T... options) {
        return options[rnd.nextInt(options.length)];
    }

    MediaType pickType() {
        return pick(MediaType.TEXT_PLAIN, MediaType.APPLICATION_XML, MediaType.APPLICATION_FORM_URLENCODED, MediaType.IMAGE_PNG,
                MediaType.MULTIPART_FORM_DATA, MediaType.APPLICATION_OCTET_STREAM);
    }

    JsonNode randomScalar() {
        return switch (rnd.nextInt(10)) {
            case 0 -> F.nullNode();
            case 1 -> F.booleanNode(rnd.nextBoolean());
            case 2 -> F.numberNode(rnd.nextLong());
            case 3 -> F.numberNode(rnd.nextDouble() * 1e300);
            case 4 -> F.numberNode(new java.math.BigInteger(200, rnd));
            case 5 -> F.numberNode(new java.math.BigDecimal("1e400"));
            case 6 -> F.stringNode(randomString());
            case 7 -> F.numberNode(-rnd.nextInt(1000));
            case 8 -> F.stringNode("");
            default -> F.numberNode(rnd.nextInt(5));
        };
    }

    String randomString() {
        StringBuilder b = new StringBuilder();
        int n = rnd.nextInt(12);
        for (int i = 0; i < n; i++) {
            b.append((char) (rnd.nextBoolean() ? 'a' + rnd.nextInt(26) : rnd.nextInt(0x3000)));
        }
        return b.toString();
    }

    /** A random JSON value whose objects only have keys no endpoint knows. */
    JsonNode randomJson(int depth) {
        if (depth == 0 || rnd.nextInt(3) == 0) {
            return randomScalar();
        }
        if (rnd.nextBoolean()) {
            ArrayNode a = F.arrayNode();
            for (int i = rnd.nextInt(4); i > 0; i--) {
                a.add(randomJson(depth - 1));
            }
            return a;
        }
        ObjectNode o = F.objectNode();
        for (int i = rnd.nextInt(4) + 1; i > 0; i--) {
            o.set("k" + rnd.nextInt(100), randomJson(depth - 1));
        }
        return o;
    }

    /** A random value of any shape, for fields whose right shape is known (so it is usually wrong). */
    JsonNode anything() {
        return rnd.nextInt(3) == 0 ? randomScalar() : randomJson(2);
    }

    Req rawBody() {
        String path = pick("/v1/tables", "/v1/views", "/v1/indexes", "/v1/peek", "/v1/tables/orders/rows");
        byte[] body = switch (rnd.nextInt(9)) {
            case 0 -> new byte[] {(byte) 0xC3, (byte) 0x28, '{'};
            case 1 -> "{\"name\":\"t\u0000\",\"columns\":[".getBytes(StandardCharsets.UTF_8);
            case 2 -> new byte[0];
            case 3 -> "{\"name\":\"dup\",\"name\":\"dup2\",\"columns\":[]}".getBytes(StandardCharsets.UTF_8);
            case 4 -> "{\"insert\":[[1,2,3]]} trailing".getBytes(StandardCharsets.UTF_8);
            case 5 -> {
                byte[] b = new byte[rnd.nextInt(200) + 1];
                rnd.nextBytes(b);
                yield b;
            }
            case 6 -> ("{\"from\":\"orders\",\"filter\":" + "[".repeat(3000) + "]".repeat(3000) + "}").getBytes(StandardCharsets.UTF_8);
            case 7 -> "{'name': 'single quotes'}".getBytes(StandardCharsets.UTF_8);
            default -> {
                String v = validTableBody();
                yield v.substring(0, rnd.nextInt(v.length() - 1)).getBytes(StandardCharsets.UTF_8);
            }
        };
        return new Req(HttpMethod.POST, path, MediaType.APPLICATION_JSON, body);
    }

    String validTableBody() {
        return "{\"name\":\"fresh" + rnd.nextInt(1000) + "\",\"columns\":[{\"name\":\"a\",\"type\":\"int64\"}]}";
    }

    String badName() {
        return pick("nope", "1abc", "a".repeat(300), "%E2%98%83", "orders%2F..", "..", "orders_by_id%00", "x%20y", "big", "orders",
                "customers_by_name", "DROP%20TABLE");
    }

    /** Names whose drop must fail: unknown, wrong kind, or still used. */
    String safeDropTarget() {
        return pick("nope", "1abc", "a".repeat(300), "%E2%98%83", "orders", "customers", "big");
    }

    JsonNode badTable() {
        ObjectNode t = F.objectNode();
        t.put("name", "fresh" + rnd.nextInt(100));
        ArrayNode cols = t.putArray("columns");
        cols.addObject().put("name", "a").put("type", "int64");
        switch (rnd.nextInt(12)) {
            case 0 -> t.set("name", pick(F.stringNode("1abc"), F.stringNode(""), F.stringNode("a".repeat(64)), F.stringNode("a b"),
                    F.stringNode("orders"), F.stringNode("big"), F.numberNode(5), F.nullNode(), randomJson(2)));
            case 1 -> t.set("columns", pick(F.arrayNode(), F.stringNode("a int"), F.objectNode(), anything()));
            case 2 -> ((ObjectNode) cols.get(0)).put("type", pick("int", "INT64", "text", "", "decimal"));
            case 3 -> ((ObjectNode) cols.get(0)).set("nullable", pick(F.stringNode("yes"), F.numberNode(1), F.arrayNode(), F.objectNode()));
            case 4 -> t.set("k" + rnd.nextInt(9), anything());
            case 5 -> t.remove("name");
            case 6 -> t.remove("columns");
            case 7 -> cols.addObject().put("name", "a").put("type", "string");
            case 8 -> ((ObjectNode) cols.get(0)).put("name", pick("", "9x", "a-b", "a".repeat(70)));
            case 9 -> cols.add(anything());
            case 10 -> ((ObjectNode) cols.get(0)).put("colour", "red");
            default -> ((ObjectNode) cols.get(0)).remove("type");
        }
        return t;
    }

    JsonNode randomPlan(int depth) {
        ObjectNode p = F.objectNode();
        String op = pick("get", "mfp", "join", "reduce", "union", "distinct", "negate", "threshold", "top_k", "constant", "flat_map", "let", "bogus");
        p.put("op", op);
        switch (rnd.nextInt(6)) {
            case 0 -> p.put("name", pick("orders", "customers", "big", "nope", "orders_by_id"));
            case 1 -> p.set("input", depth > 0 ? randomPlan(depth - 1) : anything());
            case 2 -> {
                ArrayNode a = p.putArray("inputs");
                for (int i = rnd.nextInt(3); i >= 0; i--) {
                    a.add(depth > 0 ? randomPlan(depth - 1) : anything());
                }
                p.set("on", pick(F.arrayNode(), anything(), TandemServer.json("[[[0,0],[1,0]]]"), TandemServer.json("[[[0,99],[5,0]]]")));
            }
            case 3 -> {
                p.set("input", depth > 0 ? randomPlan(depth - 1) : F.objectNode().put("op", "get").put("name", "orders"));
                p.set(pick("filter", "map", "project", "group_key", "aggregates", "limit"), pick(anything(), randomExprs(), TandemServer.json("[0,7]")));
            }
            case 4 -> p.set("rows", anything());
            default -> p.set(pick("id", "types", "k1"), anything());
        }
        return p;
    }

    JsonNode randomExpr(int depth) {
        return switch (rnd.nextInt(depth > 0 ? 5 : 3)) {
            case 0 -> F.objectNode().set("col", pick(F.numberNode(rnd.nextInt(8) - 2), F.stringNode("id"), anything()));
            case 1 -> F.objectNode().<ObjectNode>set("lit", randomScalar()).set("type", pick(F.stringNode("int64"), F.stringNode("bool"), F.stringNode("nope"), anything()));
            case 2 -> anything();
            default -> {
                ObjectNode c = F.objectNode();
                c.put("call", pick("eq", "add", "div", "mod", "cast", "not", "and", "like", "substr", "frobnicate", "length", "abs"));
                ArrayNode args = c.putArray("args");
                for (int i = rnd.nextInt(4); i > 0; i--) {
                    args.add(randomExpr(depth - 1));
                }
                if (rnd.nextBoolean()) {
                    c.set("type", pick(F.stringNode("float64"), F.stringNode("bogus"), anything()));
                }
                yield c;
            }
        };
    }

    JsonNode randomExprs() {
        ArrayNode a = F.arrayNode();
        for (int i = rnd.nextInt(3) + 1; i > 0; i--) {
            a.add(randomExpr(3));
        }
        return a;
    }

    JsonNode badView() {
        ObjectNode v = F.objectNode();
        v.put("name", "fresh_view" + rnd.nextInt(100));
        v.set("plan", TandemServer.json("{\"op\":\"get\",\"name\":\"orders\"}"));
        switch (rnd.nextInt(8)) {
            case 0, 1, 2 -> {
                // A random plan, checked in full; 50 column names fit none, so the view is never created.
                v.set("plan", rnd.nextBoolean() ? randomPlan(2) : anything());
                ArrayNode names = v.putArray("columns");
                for (int i = 0; i < 50; i++) {
                    names.add("c" + i);
                }
            }
            // never a valid list (a JSON null would be: the plan's own names)
            case 3 -> v.set("columns", pick(TandemServer.json("[\"a\"]"), TandemServer.json("[1,2,3]"), TandemServer.json("[\"a\",\"a\",\"b\"]"),
                    TandemServer.json("{\"a\":1}"), F.stringNode("id,customer,amount")));
            case 4 -> v.put("name", pick("orders", "big", "1x", ""));
            case 5 -> v.remove("plan");
            case 6 -> v.set("extra", anything());
            default -> v.set("plan", TandemServer.json("{\"op\":\"mfp\",\"input\":{\"op\":\"get\",\"name\":\"orders\"},\"filter\":" + randomExprs() + ",\"bad\":1}"));
        }
        return v;
    }

    JsonNode badIndex() {
        ObjectNode i = F.objectNode();
        i.put("name", "fresh_index" + rnd.nextInt(100));
        i.put("on", "orders");
        i.putArray("key").add("id");
        switch (rnd.nextInt(9)) {
            case 0 -> i.put("on", pick("nope", "orders_by_id", "", "big_by_id"));
            case 1 -> i.set("key", pick(F.arrayNode(), F.arrayNode().add("nope"), F.arrayNode().add(99), F.arrayNode().add(-1), F.arrayNode().add(1.5), anything()));
            case 2 -> i.set("compaction_window_ms", pick(F.numberNode(-1), F.stringNode("1s"), F.numberNode(new java.math.BigInteger("99999999999999999999999")), F.numberNode(1.5)));
            case 3 -> i.put("name", pick("orders", "orders_by_id", "9x", "a".repeat(100)));
            case 4 -> i.remove("on");
            case 5 -> i.remove("key");
            case 6 -> i.set("where", anything());
            case 7 -> i.set("on", anything());
            default -> i.set("key", F.arrayNode().add("id").add(anything()).add("nope"));
        }
        return i;
    }

    Req badWrite() {
        String table = pick("orders", "orders", "orders", "customers", "nope", "big", "orders_by_id");
        ObjectNode w = F.objectNode();
        ArrayNode ins = w.putArray("insert");
        ins.add(TandemServer.json(table.equals("customers") ? "[30,\"cy\",true]" : "[9,1,1.0]"));
        boolean knownTable = table.equals("orders") || table.equals("customers");
        int mutation = knownTable ? rnd.nextInt(9) : rnd.nextInt(10);
        switch (mutation) {
            case 0 -> ins.add(TandemServer.json("[1,2]"));
            case 1 -> ins.add(TandemServer.json("[null,1,1.0]"));
            case 2 -> ins.add(TandemServer.json(pick("[\"x\",1,1.0]", "[1e400,1,1]", "[123456789012345678901234567890,1,1]", "[1,true,1]", "[1,1,\"abc\"]", "[1.5,1,1]")));
            case 3 -> ins.add(rnd.nextBoolean() ? F.objectNode().set("k", anything()) : F.arrayNode().add(anything()).add(F.objectNode()).add(anything()));
            case 4 -> w.set("insert", pick(F.objectNode(), F.stringNode("rows"), F.numberNode(1)));
            case 5 -> w.set("delete", pick(TandemServer.json("[[1]]"), TandemServer.json("[[1,2,3,4,5]]"), F.stringNode("x"), F.objectNode().set("k", anything())));
            case 6 -> w.set("upsert", anything());
            case 7 -> {
                w.remove("insert");
                if (rnd.nextBoolean()) {
                    w.putArray("delete");
                }
            }
            case 8 -> ins.add(TandemServer.json("[" + "1,".repeat(rnd.nextInt(5) + 3) + "1]"));
            default -> { }
        }
        if (!knownTable && mutation >= 9) {
            // unknown table, view or index: the write itself is refused
            return post("/v1/tables/" + table + "/rows", w);
        }
        return post("/v1/tables/" + table + "/rows", w);
    }

    JsonNode peek() {
        ObjectNode p = F.objectNode();
        String target = pick("orders", "orders_by_id", "customers_by_name", "big", "big_by_id", "customers", "nope");
        if (rnd.nextInt(4) == 0) {
            p.set("plan", randomPlan(2));
        } else {
            p.put("from", target);
        }
        Map<String, Supplier<JsonNode>> fields = new TreeMap<>();
        fields.put("key", () -> pick(TandemServer.json("[[1]]"), TandemServer.json("[[\"ada\"]]"), TandemServer.json("[[1,2]]"),
                TandemServer.json("[1]"), TandemServer.json("[[1e400]]"), TandemServer.json("[[null]]"), anything()));
        fields.put("filter", () -> rnd.nextBoolean() ? randomExprs() : anything());
        fields.put("project", () -> pick(TandemServer.json("[\"id\"]"), TandemServer.json("[5]"), TandemServer.json("[-1]"),
                TandemServer.json("[\"nope\"]"), TandemServer.json("[0,0]"), anything()));
        fields.put("order_by", () -> pick(TandemServer.json("[{\"col\":\"nope\"}]"), TandemServer.json("[{\"col\":0,\"desc\":\"yes\"}]"),
                TandemServer.json("[{\"col\":99}]"), TandemServer.json("[{\"col\":0,\"nulls_last\":true}]"), TandemServer.json("[0]"), anything()));
        fields.put("limit", () -> pick(F.numberNode(-1), F.numberNode(Long.MAX_VALUE), F.stringNode("10"), F.numberNode(2), F.numberNode(1.5)));
        fields.put("offset", () -> pick(F.numberNode(-5), F.numberNode(Long.MAX_VALUE), F.numberNode(1), anything()));
        fields.put("isolation", () -> pick(F.stringNode("linearizable"), F.stringNode("strict"), F.stringNode(""), anything()));
        fields.put("as_of", () -> pick(F.numberNode(-1), F.numberNode(1), F.stringNode("now"), F.numberNode(1.5),
                F.numberNode(new java.math.BigInteger("99999999999999999999999"))));
        fields.put("timeout_ms", () -> pick(F.numberNode(0), F.numberNode(-1), F.stringNode("1s"), F.numberNode(Long.MAX_VALUE),
                F.numberNode(new java.math.BigInteger("99999999999999999999999"))));
        fields.put("k" + rnd.nextInt(5), this::anything);
        fields.put("from", () -> pick(F.numberNode(1), F.nullNode(), F.stringNode(""), F.stringNode("a".repeat(500)), anything()));
        List<String> names = new ArrayList<>(fields.keySet());
        for (int n = rnd.nextInt(3) + 1; n > 0; n--) {
            String f = names.get(rnd.nextInt(names.size()));
            p.set(f, fields.get(f).get());
        }
        return p;
    }

    Req lookup() {
        String index = pick("orders_by_id", "customers_by_name", "big_by_id", "orders", "nope", "big");
        StringBuilder q = new StringBuilder();
        for (int n = rnd.nextInt(3) + 1; n > 0; n--) {
            q.append(q.isEmpty() ? "?" : "&").append(pick("key=abc", "key=1.5", "key=99999999999999999999", "key=", "key=%FF%FE",
                    "limit=-1", "limit=x", "as_of=x", "as_of=1", "isolation=weird", "colour=red", "key=1&key=x", "key=true"));
        }
        return new Req(HttpMethod.GET, "/v1/indexes/" + index + "/rows" + q, null, null);
    }

    Req wrongMethodOrPath() {
        return switch (rnd.nextInt(4)) {
            case 0 -> new Req(pick(HttpMethod.PUT, HttpMethod.PATCH, HttpMethod.DELETE), pick("/v1/tables", "/v1/peek", "/v1/indexes", "/v1/views"),
                    MediaType.APPLICATION_JSON, "{}".getBytes(StandardCharsets.UTF_8));
            case 1 -> new Req(HttpMethod.GET, pick("/v1/peek", "/v1/tables/orders/rows", "/v1/nope", "/v2/tables", "/v1/tables/orders/rows/1",
                    "/v1/indexes/orders_by_id/rows/extra", "/v1/compute", "/v1/ws"), null, null);
            case 2 -> new Req(HttpMethod.POST, pick("/v1/tables/orders", "/v1/indexes/orders_by_id", "/v1/indexes/orders_by_id/rows", "/nope"),
                    MediaType.APPLICATION_JSON, "{}".getBytes(StandardCharsets.UTF_8));
            default -> new Req(HttpMethod.PUT, "/v1/tables/orders/rows", MediaType.APPLICATION_JSON, "{\"insert\":[[7,7,7.0]]}".getBytes(StandardCharsets.UTF_8));
        };
    }

    Req oversized() {
        StringBuilder b = new StringBuilder("{\"insert\":[");
        while (b.length() < 70_000) {
            b.append("[1,2,3.0],");
        }
        b.append("[1,2,3.0]]}");
        return post(pick("/v1/tables/orders/rows", "/v1/peek", "/v1/tables"), b.toString());
    }
}
