package dev.tandem.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The assignor that spreads sources over replicas, run directly as a group leader would run it: the one
 * partition of the log topic goes to exactly one member, the one the rank rule picks, and the sources end
 * evenly spread.
 */
class SourceRankAssignorTest {

    private static final String LOG = "tandem-log";
    private static final Node NODE = new Node(0, "localhost", 9092);
    private static final Cluster CLUSTER = new Cluster("c", List.of(NODE),
            List.of(new PartitionInfo(LOG, 0, NODE, new Node[] {NODE}, new Node[] {NODE})), Set.of(), Set.of());

    /** Member ids (as the coordinator names them, in no useful order) to replica ids. */
    private static final Map<String, String> MEMBERS = new LinkedHashMap<>(Map.of("member-z", "replica-b", "member-a", "replica-c",
            "member-m", "replica-a"));

    @Test
    void theSourceGoesToTheReplicaAtItsRankAmongReplicasOrderedById() {
        List<String> sources = List.of("s0", "s1", "s2", "s3");
        // Worked out by hand: replicas in id order are a, b, c; source i goes to replica i mod 3.
        Map<String, String> expected = Map.of("s0", "replica-a", "s1", "replica-b", "s2", "replica-c", "s3", "replica-a");
        for (String source : sources) {
            assertThat(holders(source, () -> sources, MEMBERS)).as(source).containsExactly(expected.get(source));
        }
    }

    @Test
    void sourcesSpreadEvenlyForAnyNumberOfReplicasAndSources() {
        for (int replicas = 1; replicas <= 4; replicas++) {
            Map<String, String> members = new HashMap<>();
            for (int r = 0; r < replicas; r++) {
                members.put("member-" + (97 * r % 11), "replica-" + r);
            }
            for (int n = 0; n <= 9; n++) {
                List<String> sources = new ArrayList<>();
                for (int s = 0; s < n; s++) {
                    sources.add("src" + s);
                }
                Map<String, Integer> counts = new HashMap<>();
                members.values().forEach(r -> counts.put(r, 0));
                for (String source : sources) {
                    List<String> holders = holders(source, () -> sources, members);
                    assertThat(holders).as("%s among %d replicas", source, members.size()).hasSize(1);
                    counts.merge(holders.get(0), 1, Integer::sum);
                }
                int max = counts.values().stream().mapToInt(Integer::intValue).max().orElse(0);
                int min = counts.values().stream().mapToInt(Integer::intValue).min().orElse(0);
                assertThat(max - min).as("%d sources over %d replicas: %s", n, replicas, counts).isLessThanOrEqualTo(1);
            }
        }
    }

    @Test
    void aSourceTheLeaderDoesNotKnowYetStillGoesToExactlyOneMember() {
        assertThat(holders("new", () -> List.of("a", "b"), MEMBERS)).hasSize(1);
        assertThat(holders("new", List::of, Map.of("only", "replica-x"))).containsExactly("replica-x");
    }

    /** Runs the assignor for {@code source} over {@code members} and returns the replicas given a partition. */
    private static List<String> holders(String source, Supplier<List<String>> sources, Map<String, String> members) {
        SourceRankAssignor assignor = new SourceRankAssignor();
        Map<String, Object> config = new HashMap<>();
        config.put(SourceRankAssignor.REPLICA, "replica-leader");
        config.put(SourceRankAssignor.SOURCE, source);
        config.put(SourceRankAssignor.SOURCES, sources);
        assignor.configure(config);
        Map<String, Subscription> subscriptions = new HashMap<>();
        members.forEach((member, replica) -> subscriptions.put(member,
                new Subscription(List.of(LOG), ByteBuffer.wrap(replica.getBytes(StandardCharsets.UTF_8)))));
        Map<String, org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment> out =
                assignor.assign(CLUSTER, new GroupSubscription(subscriptions)).groupAssignment();
        assertThat(out.keySet()).isEqualTo(members.keySet());
        List<String> holders = new ArrayList<>();
        out.forEach((member, a) -> {
            if (!a.partitions().isEmpty()) {
                assertThat(a.partitions()).containsExactly(new TopicPartition(LOG, 0));
                holders.add(members.get(member));
            }
        });
        return holders;
    }
}
