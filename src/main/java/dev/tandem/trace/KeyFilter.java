package dev.tandem.trace;

import dev.tandem.row.Row;

/**
 * A batch's key filter: a blocked Bloom filter over the {@linkplain Row#hash64() 64-bit hashes} of its
 * keys, so that a point lookup on a spine of many batches searches only the batches that may hold the
 * key. It never rejects a key its batch holds; it accepts an absent key with a probability of about one
 * percent.
 *
 * <h2>Layout</h2>
 * One primitive {@code long[]} of blocks of {@value #BLOCK_WORDS} words (512 bits, about one cache line).
 * A key selects one block with the high 32 bits of its hash and sets one bit in each word of it, the
 * bit chosen by a multiplicative hash of the low 32 bits with one odd salt per word (the "split block"
 * filter of Parquet and Impala). A probe thus reads one block and no other memory.
 *
 * <h2>Size</h2>
 * {@value #BITS_PER_KEY} bits per key (1.25 bytes) give a false-positive rate near one percent: a live
 * spine of ten batches searches about 0.1 batch in vain per lookup, while rows at rest pay 1.25 bytes
 * each. Batches of fewer than {@value #MIN_KEYS} keys have no filter ({@link #ALL}): a binary search
 * over so few keys costs about what the probe would spare.
 *
 * <h2>Building</h2>
 * A {@link Builder} is sized for the exact number of keys of its batch, so a filter's size depends on
 * its keys alone (not on the merges that produced them, as memory after compaction must not), and takes
 * the keys one at a time once they are all written ({@link BatchWriter#finish}).
 */
final class KeyFilter {

    /** Filter bits per key: a false-positive rate near one percent for 1.25 bytes per key. */
    static final int BITS_PER_KEY = 10;
    /** Batches with fewer keys have no filter. */
    static final int MIN_KEYS = 32;
    /** Words per block: 512 bits, one cache line. */
    static final int BLOCK_WORDS = 8;
    private static final int BLOCK_BITS = BLOCK_WORDS * Long.SIZE;
    /** Shifting a 32-bit product right by this leaves a bit index in a 64-bit word. */
    private static final int BIT_INDEX_SHIFT = Integer.SIZE - Integer.numberOfTrailingZeros(Long.SIZE);
    /** One odd multiplier per word of a block, from Parquet's split block Bloom filter. */
    private static final int[] SALTS = {0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b,
            0x9efc4947, 0x5c6bfb31};

    /** The filter of a batch too small to need one: it may hold every key. */
    static final KeyFilter ALL = new KeyFilter(new long[0], 0);

    private final long[] words;
    private final long blocks;

    private KeyFilter(long[] words, long blocks) {
        this.words = words;
        this.blocks = blocks;
    }

    /** Whether the batch may hold a key of this {@linkplain Row#hash64() hash}; true for every key it holds. */
    boolean mayContain(long keyHash) {
        if (blocks == 0) {
            return true;
        }
        int base = block(keyHash, blocks) * BLOCK_WORDS;
        int bits = (int) keyHash;
        // every word is tested, with no early exit: the block is one cache line either way, and a branch per
        // word would mispredict often for absent keys, holding up the probes a lookup issues together
        long missing = 0;
        for (int w = 0; w < BLOCK_WORDS; w++) {
            missing |= bit(bits, w) & ~words[base + w];
        }
        return missing == 0;
    }

    /** Heap bytes of the filter's words. */
    long byteSize() {
        return 8L * words.length;
    }

    /** The block among {@code blocks} of a key's hash: its high 32 bits scaled to the range. */
    private static int block(long keyHash, long blocks) {
        return (int) (((keyHash >>> Integer.SIZE) * blocks) >>> Integer.SIZE);
    }

    /** The bit a key's low hash bits set in word {@code w} of its block. */
    private static long bit(int bits, int w) {
        return 1L << ((bits * SALTS[w]) >>> BIT_INDEX_SHIFT);
    }

    private static long blocksFor(long keys) {
        return Math.ceilDiv(keys * BITS_PER_KEY, BLOCK_BITS);
    }

    /** A filter under construction for a known number of keys, which are added one at a time. */
    static final class Builder {
        private final long[] words;
        private final long blocks;

        /** A builder for {@code keys} keys; it keeps nothing when they are fewer than {@link #MIN_KEYS}. */
        Builder(int keys) {
            blocks = keys < MIN_KEYS ? 0 : blocksFor(keys);
            words = new long[Math.toIntExact(blocks * BLOCK_WORDS)];
        }

        /** Adds the key encoded at {@code bytes[from, to)}. */
        void add(byte[] bytes, int from, int to) {
            if (blocks == 0) {
                return;
            }
            long keyHash = Row.hash64(bytes, from, to);
            int base = block(keyHash, blocks) * BLOCK_WORDS;
            int bits = (int) keyHash;
            for (int w = 0; w < BLOCK_WORDS; w++) {
                words[base + w] |= bit(bits, w);
            }
        }

        /** The filter of the keys added: {@link #ALL} when it was made for fewer than {@link #MIN_KEYS}. */
        KeyFilter build() {
            return blocks == 0 ? ALL : new KeyFilter(words, blocks);
        }
    }
}
