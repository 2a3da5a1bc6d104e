package dev.tandem.render;

import java.util.Arrays;

/**
 * Multisets of longs, one per dense int slot, each answering its least and greatest value: the state
 * of min and max aggregates whose values order as longs. A value's count may go negative; a value
 * whose count returns to zero leaves its multiset.
 *
 * <p>A slot with one distinct value holds it inline, in primitive arrays indexed by slot, so that
 * common case allocates nothing. From a second distinct value on, the slot holds a sorted array of
 * interleaved value and count pairs, grown by doubling up to one block of {@code blockPairs} pairs
 * and halved when three quarters empty. Beyond one block it holds {@link Blocks}: sorted, non-empty
 * blocks, so an update costs two binary searches and moving at most a block's pairs (and, on a split
 * or merge, the block index's entries) however many values the slot has: a reduce without a group key
 * has one slot for a whole table. A slot that empties drops its arrays; one that shrinks to one value
 * keeps a pair array, so a group moving between one and two values does not allocate each time.
 */
final class LongMultisets {

    /**
     * Pairs per block (4 KB): an update moves at most a block's pairs, and a split or merge the block
     * index's entries, so a block is small enough to move cheaply and large enough to keep the index short.
     */
    static final int BLOCK_PAIRS = 256;
    private static final int MIN_PAIRS = 4;
    /** Bytes of an array header, and of a {@link Blocks} object without its arrays. */
    private static final long ARRAY_HEADER = 16;
    private static final long BLOCKS_OBJECT = 32;

    private final int blockPairs;
    /** Per slot: its number of distinct values. */
    private int[] sizes = new int[0];
    /** Per slot with one distinct value and no pair array: that value and its count. */
    private long[] onlyValue = new long[0];
    private long[] onlyCount = new long[0];
    /** Per slot: null (inline), a sorted pair array, or {@link Blocks}. */
    private Object[] spilled = new Object[0];
    /** Bytes of the pair arrays and blocks the slots hold. */
    private long spilledBytes;

    LongMultisets() {
        this(BLOCK_PAIRS);
    }

    /** Multisets with blocks of {@code blockPairs} pairs, a power of two of at least {@value #MIN_PAIRS}. */
    LongMultisets(int blockPairs) {
        if (blockPairs < MIN_PAIRS || Integer.bitCount(blockPairs) != 1) {
            throw new IllegalArgumentException("block of " + blockPairs + " pairs");
        }
        this.blockPairs = blockPairs;
    }

    /** Makes room for slots below {@code capacity}; new slots are empty. */
    void grow(int capacity) {
        if (capacity > sizes.length) {
            sizes = Arrays.copyOf(sizes, capacity);
            onlyValue = Arrays.copyOf(onlyValue, capacity);
            onlyCount = Arrays.copyOf(onlyCount, capacity);
            spilled = Arrays.copyOf(spilled, capacity);
        }
    }

    /** Adds {@code diff}, nonzero, to the count of {@code value} in slot {@code s}. */
    void add(int s, long value, long diff) {
        Object set = spilled[s];
        if (set == null) {
            addInline(s, value, diff);
        } else if (set instanceof long[] pairs) {
            addToArray(s, pairs, value, diff);
        } else {
            Blocks blocks = (Blocks) set;
            sizes[s] += blocks.add(value, diff);
            if (blocks.count == 1) {
                spilledBytes -= blocks.indexBytes();
                spilled[s] = blocks.blocks[0];
            }
        }
    }

    boolean isEmpty(int s) {
        return sizes[s] == 0;
    }

    /** The least value of slot {@code s}, which must not be empty. */
    long min(int s) {
        Object set = spilled[s];
        if (set == null) {
            return onlyValue[s];
        }
        if (set instanceof long[] pairs) {
            return pairs[0];
        }
        return ((Blocks) set).blocks[0][0];
    }

    /** The greatest value of slot {@code s}, which must not be empty. */
    long max(int s) {
        Object set = spilled[s];
        if (set == null) {
            return onlyValue[s];
        }
        if (set instanceof long[] pairs) {
            return pairs[2 * sizes[s] - 2];
        }
        Blocks blocks = (Blocks) set;
        int last = blocks.count - 1;
        return blocks.blocks[last][2 * blocks.used[last] - 2];
    }

    /** The per-slot arrays and the pair arrays and blocks held (array headers and references of 4 bytes included). */
    long residentBytes() {
        return (4L + 8 + 8 + 4) * sizes.length + spilledBytes;
    }

    private void addInline(int s, long value, long diff) {
        if (sizes[s] == 0) {
            onlyValue[s] = value;
            onlyCount[s] = diff;
            sizes[s] = 1;
        } else if (onlyValue[s] == value) {
            if ((onlyCount[s] += diff) == 0) {
                sizes[s] = 0;
            }
        } else {
            long[] pairs = newPairs(MIN_PAIRS);
            int at = value < onlyValue[s] ? 0 : 1;
            pairs[2 - 2 * at] = onlyValue[s];
            pairs[3 - 2 * at] = onlyCount[s];
            pairs[2 * at] = value;
            pairs[2 * at + 1] = diff;
            sizes[s] = 2;
            spilled[s] = pairs;
        }
    }

    private void addToArray(int s, long[] pairs, long value, long diff) {
        int n = sizes[s];
        int i = search(pairs, n, value);
        if (i >= 0) {
            if ((pairs[2 * i + 1] += diff) == 0) {
                removePair(pairs, n--, i);
                sizes[s] = n;
                if (n == 0) {
                    spilled[s] = null;
                    spilledBytes -= bytes(pairs);
                } else if (pairs.length > 2 * MIN_PAIRS && n <= pairs.length / 8) {
                    spilled[s] = resize(pairs, pairs.length / 4);
                }
            }
            return;
        }
        if (n == blockPairs) {
            Blocks blocks = new Blocks(pairs);
            spilled[s] = blocks;
            sizes[s] += blocks.add(value, diff);
            return;
        }
        if (2 * n == pairs.length) {
            pairs = resize(pairs, Math.min(2 * n, blockPairs));
            spilled[s] = pairs;
        }
        insertPair(pairs, n, -i - 1, value, diff);
        sizes[s] = n + 1;
    }

    /** The index of the pair of {@code value} among the first {@code n} of {@code pairs}, or -(insertion point) - 1. */
    private static int search(long[] pairs, int n, long value) {
        int lo = 0;
        int hi = n - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long v = pairs[2 * mid];
            if (v < value) {
                lo = mid + 1;
            } else if (v > value) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -lo - 1;
    }

    private static void insertPair(long[] pairs, int n, int at, long value, long count) {
        System.arraycopy(pairs, 2 * at, pairs, 2 * at + 2, 2 * (n - at));
        pairs[2 * at] = value;
        pairs[2 * at + 1] = count;
    }

    private static void removePair(long[] pairs, int n, int at) {
        System.arraycopy(pairs, 2 * at + 2, pairs, 2 * at, 2 * (n - at - 1));
    }

    private long[] newPairs(int pairs) {
        spilledBytes += ARRAY_HEADER + 16L * pairs;
        return new long[2 * pairs];
    }

    private long[] resize(long[] pairs, int toPairs) {
        spilledBytes += 16L * toPairs - 8L * pairs.length;
        return Arrays.copyOf(pairs, 2 * toPairs);
    }

    private static long bytes(long[] array) {
        return ARRAY_HEADER + 8L * array.length;
    }

    /**
     * One slot's values in two or more sorted, non-empty blocks of up to {@code blockPairs} pairs. A
     * full block splits in halves; a block that empties goes, and after a removal a block merges with a
     * neighbour when both fit in half a block. So any two neighbours hold more than half a block, and
     * blocks are on average more than a quarter full. The index arrays double and halve like the pair
     * arrays, so the memory held stays proportional to the values held.
     */
    private final class Blocks {
        long[][] blocks;
        /** Pairs in each block. */
        int[] used;
        /** Each block's least value, searched to find the block a value belongs in. */
        long[] firsts;
        int count;

        /** Blocks holding the one full block {@code full} (split by the next insertion). */
        Blocks(long[] full) {
            blocks = new long[4][];
            used = new int[4];
            firsts = new long[4];
            blocks[0] = full;
            used[0] = blockPairs;
            firsts[0] = full[0];
            count = 1;
            spilledBytes += indexBytes();
        }

        /** Adds {@code diff} to the count of {@code value}; returns the change in distinct values. */
        int add(long value, long diff) {
            int b = blockOf(value);
            long[] block = blocks[b];
            int n = used[b];
            int i = search(block, n, value);
            if (i >= 0) {
                if ((block[2 * i + 1] += diff) != 0) {
                    return 0;
                }
                removePair(block, n, i);
                if (--used[b] == 0) {
                    removeBlock(b);
                } else {
                    firsts[b] = block[0];
                    mergeSmall(b);
                }
                return -1;
            }
            int at = -i - 1;
            if (n == blockPairs) {
                split(b);
                if (at > used[b]) {
                    at -= used[b];
                    b++;
                }
            }
            insertPair(blocks[b], used[b], at, value, diff);
            used[b]++;
            firsts[b] = blocks[b][0];
            return 1;
        }

        /** The last block whose least value is at most {@code value}, or the first block. */
        private int blockOf(long value) {
            int lo = 0;
            int hi = count - 1;
            while (lo < hi) {
                int mid = (lo + hi + 1) >>> 1;
                if (firsts[mid] <= value) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            return lo;
        }

        private void split(int b) {
            int half = blockPairs / 2;
            long[] upper = newPairs(blockPairs);
            System.arraycopy(blocks[b], 2 * half, upper, 0, 2 * (blockPairs - half));
            used[b] = half;
            insertBlock(b + 1, upper, blockPairs - half);
        }

        private void mergeSmall(int b) {
            if (b + 1 < count && used[b] + used[b + 1] <= blockPairs / 2) {
                mergeWithNext(b);
            } else if (b > 0 && used[b - 1] + used[b] <= blockPairs / 2) {
                mergeWithNext(b - 1);
            }
        }

        private void mergeWithNext(int b) {
            System.arraycopy(blocks[b + 1], 0, blocks[b], 2 * used[b], 2 * used[b + 1]);
            used[b] += used[b + 1];
            removeBlock(b + 1);
        }

        private void insertBlock(int b, long[] block, int pairs) {
            if (count == blocks.length) {
                resizeIndex(2 * count);
            }
            System.arraycopy(blocks, b, blocks, b + 1, count - b);
            System.arraycopy(used, b, used, b + 1, count - b);
            System.arraycopy(firsts, b, firsts, b + 1, count - b);
            blocks[b] = block;
            used[b] = pairs;
            firsts[b] = block[0];
            count++;
        }

        private void removeBlock(int b) {
            spilledBytes -= bytes(blocks[b]);
            count--;
            System.arraycopy(blocks, b + 1, blocks, b, count - b);
            System.arraycopy(used, b + 1, used, b, count - b);
            System.arraycopy(firsts, b + 1, firsts, b, count - b);
            blocks[count] = null;
            if (blocks.length > 4 && count <= blocks.length / 4) {
                resizeIndex(blocks.length / 2);
            }
        }

        private void resizeIndex(int capacity) {
            spilledBytes -= indexBytes();
            blocks = Arrays.copyOf(blocks, capacity);
            used = Arrays.copyOf(used, capacity);
            firsts = Arrays.copyOf(firsts, capacity);
            spilledBytes += indexBytes();
        }

        /** Bytes of this object and its index arrays, without the blocks. */
        long indexBytes() {
            return BLOCKS_OBJECT + 3 * ARRAY_HEADER + (4L + 4 + 8) * blocks.length;
        }
    }
}
