package dev.tandem.row;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Rows hash well for hash tables: the keys of a bigint column numbered from 0 (what tables keyed by a
 * sequence hold) get distinct hash codes, also in the low bits a hash table indexes by; equal rows in
 * different arrays hash alike.
 */
class RowHashTest {

    @Test
    void sequentialKeysGetDistinctHashCodesInTheLowBitsToo() {
        int n = 200_000;
        Set<Integer> codes = new HashSet<>();
        Set<Integer> lowBits = new HashSet<>();
        for (long i = 0; i < n; i++) {
            int h = Row.of(i).hashCode();
            codes.add(h);
            lowBits.add((h ^ (h >>> 16)) & ((1 << 18) - 1));
        }
        assertThat(codes).as("distinct hash codes of %d keys", n).hasSizeGreaterThan(n - 100);
        // 200,000 keys in 262,144 buckets at random fill about 143,000 of them; a polynomial hash of the bytes filled 29,000 for a million keys
        assertThat(lowBits).as("buckets of a 2^18 table").hasSizeGreaterThan(130_000);
    }

    @Test
    void equalRowsInOtherArraysHashAlike() {
        Row a = Row.of(42L, "x", 1.5);
        byte[] padded = new byte[a.byteSize() + 7];
        a.copyTo(padded, 7);
        Row b = Row.wrap(padded, 7, a.byteSize());
        assertThat(b).isEqualTo(a);
        assertThat(b.hashCode()).isEqualTo(a.hashCode());
    }
}
