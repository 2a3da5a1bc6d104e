package dev.tandem.source;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Spreads the sources over the replicas: in a source's group, gives the log topic's partition (the lease)
 * to the member at position {@code rank mod members}, where {@code rank} is the source's position among
 * the sources this replica knows in the order they were created, and the members are ordered by their
 * replica ids (which a replica sends alike to every group it joins). So with every replica knowing every
 * source, replica {@code i} of {@code n} ingests sources {@code i}, {@code i + n}, … and the counts differ
 * by at most one. A new source ranks last, so the ranks of the others stay as they are.
 *
 * <p>Only the group's leader runs {@link #assign}, once per rebalance (a replica joining or leaving);
 * a leader whose view of the sources is momentarily behind may pick a less even member, never two, since
 * the group coordinator hands each partition to one member whatever the assignor decides. Rebalances are
 * eager: every member gives the lease up before the new assignment, and the ingester's guarded writes
 * refuse a batch of a holder that had not noticed yet.
 *
 * <p>Configured by Kafka (a public class with a no-argument constructor) from the consumer's properties
 * {@link #REPLICA} and {@link #SOURCE} and {@link #SOURCES} (a {@code Supplier<List<String>>} of the
 * source names in creation order).
 */
public final class SourceRankAssignor implements ConsumerPartitionAssignor, Configurable {

    static final String NAME = "tandem-source-rank";
    static final String REPLICA = "tandem.source.replica";
    static final String SOURCE = "tandem.source.name";
    static final String SOURCES = "tandem.source.names";

    private String replica;
    private String source;
    private Supplier<List<String>> sources;

    public SourceRankAssignor() {
    }

    @Override
    @SuppressWarnings("unchecked")
    public void configure(Map<String, ?> configs) {
        replica = (String) configs.get(REPLICA);
        source = (String) configs.get(SOURCE);
        sources = (Supplier<List<String>>) configs.get(SOURCES);
        if (replica == null || source == null || sources == null) {
            throw new IllegalArgumentException(NAME + " needs " + REPLICA + ", " + SOURCE + " and " + SOURCES);
        }
    }

    @Override
    public ByteBuffer subscriptionUserData(Set<String> topics) {
        return ByteBuffer.wrap(replica.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public GroupAssignment assign(Cluster metadata, GroupSubscription groupSubscription) {
        Map<String, Subscription> subscriptions = groupSubscription.groupSubscription();
        List<String> members = new ArrayList<>(subscriptions.keySet());
        members.sort(Comparator.<String, String>comparing(m -> replicaOf(subscriptions.get(m))).thenComparing(m -> m));
        List<String> names = sources.get();
        int rank = names.indexOf(source);
        String chosen = members.get(Math.floorMod(rank < 0 ? names.size() : rank, members.size()));
        Map<String, Assignment> out = new HashMap<>();
        for (String m : members) {
            List<TopicPartition> partitions = new ArrayList<>();
            if (m.equals(chosen)) {
                for (String topic : subscriptions.get(m).topics()) {
                    for (PartitionInfo p : metadata.partitionsForTopic(topic)) {
                        partitions.add(new TopicPartition(topic, p.partition()));
                    }
                }
            }
            out.put(m, new Assignment(partitions));
        }
        return new GroupAssignment(out);
    }

    private static String replicaOf(Subscription s) {
        ByteBuffer data = s.userData();
        if (data == null) {
            return "";
        }
        byte[] bytes = new byte[data.remaining()];
        data.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public String name() {
        return NAME;
    }
}
