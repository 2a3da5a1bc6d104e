package dev.tandem.api;

import static dev.tandem.api.TandemServer.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.api.TandemServer.Response;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Keys through the REST table API: declared on creation, enforced on writes (409 problem+json), served by the primary key's index. */
class TableKeysApiTest {

    @TempDir
    Path dir;

    @Test
    void keysAreDeclaredEnforcedAndIndexed() {
        try (TandemServer s = new TandemServer(dir, Map.of())) {
            Response t = s.post("/v1/tables", """
                    {"name":"users","columns":[{"name":"id","type":"int64"},{"name":"email","type":"string"},{"name":"n","type":"int64"}],
                     "primary_key":["id"],"unique":[["email"]]}""");
            assertThat(t.status()).isEqualTo(201);
            // the primary key's column is NOT NULL
            assertThat(t.json().get("columns").get(0)).isEqualTo(json("{\"name\":\"id\",\"type\":\"int64\",\"nullable\":false}"));
            assertThat(t.json().get("primary_key")).isEqualTo(json("[\"id\"]"));
            assertThat(t.json().get("unique")).isEqualTo(json("[{\"name\":\"users_email_key\",\"columns\":[\"email\"]}]"));
            assertThat(s.get("/v1/tables/users").json().get("primary_key")).isEqualTo(json("[\"id\"]"));
            // the primary key is an index by itself
            Response idx = s.get("/v1/indexes/users_pkey");
            assertThat(idx.status()).isEqualTo(200);
            assertThat(idx.json().get("on").asString()).isEqualTo("users");
            assertThat(idx.json().get("key")).isEqualTo(json("[\"id\"]"));
            ApiJourneyTest.awaitHydrated(s, "users_pkey");

            assertThat(s.post("/v1/tables/users/rows", "{\"insert\":[[1,\"a@x\",10],[2,\"b@x\",20],[3,null,30],[4,null,40]]}").status())
                    .isEqualTo(200);
            Response dup = s.post("/v1/tables/users/rows", "{\"insert\":[[1,\"c@x\",50]]}");
            assertThat(dup.status()).isEqualTo(409);
            assertThat(dup.contentType().toString()).startsWith("application/problem+json");
            assertThat(dup.json().get("type").asString()).isEqualTo("https://tandem.dev/problems/unique-violation");
            assertThat(dup.json().get("detail").asString())
                    .isEqualTo("duplicate key value violates unique constraint \"users_pkey\": Key (id)=(1) already exists.");
            Response twice = s.post("/v1/tables/users/rows", "{\"insert\":[[7,\"g@x\",1],[7,\"h@x\",2]]}");
            assertThat(twice.status()).isEqualTo(409);
            Response email = s.post("/v1/tables/users/rows", "{\"insert\":[[5,\"b@x\",50]]}");
            assertThat(email.status()).isEqualTo(409);
            assertThat(email.json().get("detail").asString()).contains("\"users_email_key\"", "Key (email)=(b@x) already exists.");
            // a replacement (delete and insert of one key in one write) is no duplicate
            assertThat(s.post("/v1/tables/users/rows", "{\"delete\":[[2,\"b@x\",20]],\"insert\":[[2,\"b@x\",21]]}").status()).isEqualTo(200);

            // a point lookup by the key takes the fast path through the key's index, with no index created for it,
            // even beside another index with a key of one column
            assertThat(s.post("/v1/indexes", "{\"name\":\"users_by_n\",\"on\":\"users\",\"key\":[\"n\"]}").status()).isEqualTo(201);
            ApiJourneyTest.awaitHydrated(s, "users_by_n");
            Response point = s.post("/v1/peek", "{\"from\":\"users\",\"key\":[[2]],\"isolation\":\"strict\"}");
            assertThat(point.status()).isEqualTo(200);
            assertThat(point.json().get("path").asString()).isEqualTo("fast");
            assertThat(point.json().get("rows")).isEqualTo(json("[[2,\"b@x\",21]]"));
            // nothing of the refused writes was kept
            Response all = s.post("/v1/peek", "{\"from\":\"users\",\"isolation\":\"strict\",\"order_by\":[{\"col\":\"id\"}]}");
            assertThat(all.json().get("rows")).isEqualTo(json("[[1,\"a@x\",10],[2,\"b@x\",21],[3,null,30],[4,null,40]]"));

            // over SQL too
            Response sql = s.post("/v1/sql", "{\"sql\":\"INSERT INTO users VALUES (3, 'z@x', 0)\"}");
            assertThat(sql.status()).isEqualTo(409);
            assertThat(sql.json().get("sqlstate").asString()).isEqualTo("23505");
            assertThat(sql.json().get("constraint").asString()).isEqualTo("users_pkey");

            // the key's index goes with its table, not alone
            assertThat(s.delete("/v1/indexes/users_pkey").status()).isEqualTo(409);
            assertThat(s.delete("/v1/indexes/users_by_n").status()).isBetween(200, 204);
            assertThat(s.delete("/v1/tables/users").status()).isBetween(200, 204);
            assertThat(s.get("/v1/indexes/users_pkey").status()).isEqualTo(404);
            assertThat(s.post("/v1/tables", """
                    {"name":"users","columns":[{"name":"id","type":"int64"}],"primary_key":["id"]}""").status()).isEqualTo(201);
        }
    }

    @Test
    void badKeysAreRefused() {
        try (TandemServer s = new TandemServer(dir, Map.of())) {
            String cols = "\"columns\":[{\"name\":\"a\",\"type\":\"int64\"},{\"name\":\"b\",\"type\":\"string\"}]";
            assertThat(s.post("/v1/tables", "{\"name\":\"t\"," + cols + ",\"primary_key\":[\"nope\"]}").status()).isEqualTo(422);
            assertThat(s.post("/v1/tables", "{\"name\":\"t\"," + cols + ",\"primary_key\":[\"a\",\"a\"]}").status()).isEqualTo(422);
            assertThat(s.post("/v1/tables", "{\"name\":\"t\"," + cols + ",\"primary_key\":[]}").status()).isEqualTo(422);
            assertThat(s.post("/v1/tables", "{\"name\":\"t\"," + cols + ",\"primary_key\":\"a\"}").status()).isEqualTo(400);
            assertThat(s.post("/v1/tables", "{\"name\":\"t\"," + cols + ",\"primary_key\":[1]}").status()).isEqualTo(400);
            assertThat(s.post("/v1/tables", "{\"name\":\"t\"," + cols + ",\"unique\":[\"b\"]}").status()).isEqualTo(400);
            assertThat(s.post("/v1/tables", "{\"name\":\"t\"," + cols + ",\"unique\":[[]]}").status()).isEqualTo(422);
            // nothing was created by the refusals
            assertThat(s.get("/v1/tables").json()).isEmpty();
            assertThat(s.get("/v1/indexes").json()).isEmpty();
            // a name the key's index would take is taken
            assertThat(s.post("/v1/tables", "{\"name\":\"t_pkey\",\"columns\":[{\"name\":\"a\",\"type\":\"int64\"}]}").status()).isEqualTo(201);
            assertThat(s.post("/v1/tables", "{\"name\":\"t\"," + cols + ",\"primary_key\":[\"a\"]}").status()).isEqualTo(409);
            assertThat(s.get("/v1/tables/t").status()).isEqualTo(404);
        }
    }
}
