package dev.tandem.render;

import dev.tandem.row.Row;
import java.util.Arrays;

/**
 * A hash map from rows to dense int slots, for operator state kept in primitive arrays indexed by
 * slot. The keys' encodings are copied into one byte slab, so the map holds a handful of arrays and
 * no object per key. Open addressing with linear probing and backward-shift deletion; freed slots
 * are reused, so the slots stay below {@link #capacity()} and the owner grows its arrays with it.
 * Removed keys' bytes are reclaimed by compacting the slab once they are half of it. Lookups and
 * removals allocate nothing; adding allocates only when an array grows.
 */
final class RowSlots {

    /** Slot + 1 at each position of the hash table; 0 is an empty position. */
    private int[] table = new int[16];
    /** The encoded keys; each slot's key at {@code slab[offsets[s], offsets[s] + lengths[s])}. */
    private byte[] slab = new byte[256];
    private int slabUsed;
    /** Bytes of the slab that belong to removed keys. */
    private int slabGarbage;
    private int[] offsets = new int[8];
    /** The length of each slot's key, -1 when the slot is free. */
    private int[] lengths = new int[8];
    /** The spread hash of each slot's key. */
    private int[] hashes = new int[8];
    private int[] free = new int[8];
    private int freeCount;
    /** Slots handed out so far, including freed ones. */
    private int highWater;
    private int size;

    /** The slot of {@code key}, or -1. */
    int find(Row key) {
        int h = spread(key.hashCode());
        int mask = table.length - 1;
        for (int i = h & mask; table[i] != 0; i = (i + 1) & mask) {
            int s = table[i] - 1;
            if (hashes[s] == h && lengths[s] == key.byteSize() && key.compareTo(slab, offsets[s], offsets[s] + lengths[s]) == 0) {
                return s;
            }
        }
        return -1;
    }

    /** Adds {@code key}, which must be absent, and returns its new slot. The map copies the row's bytes. */
    int add(Row key) {
        if ((size + 1) * 4 > table.length * 3) {
            rehash(table.length * 2);
        }
        int slot;
        if (freeCount > 0) {
            slot = free[--freeCount];
        } else {
            slot = highWater++;
            if (slot == lengths.length) {
                offsets = Arrays.copyOf(offsets, slot * 2);
                lengths = Arrays.copyOf(lengths, slot * 2);
                hashes = Arrays.copyOf(hashes, slot * 2);
            }
        }
        int n = key.byteSize();
        if (slabUsed + n > slab.length) {
            growSlab(n);
        }
        key.copyTo(slab, slabUsed);
        offsets[slot] = slabUsed;
        lengths[slot] = n;
        slabUsed += n;
        int h = spread(key.hashCode());
        hashes[slot] = h;
        int mask = table.length - 1;
        int i = h & mask;
        while (table[i] != 0) {
            i = (i + 1) & mask;
        }
        table[i] = slot + 1;
        size++;
        return slot;
    }

    /** Removes the key of {@code slot}; the slot may be handed out again. */
    void remove(int slot) {
        int mask = table.length - 1;
        int i = hashes[slot] & mask;
        while (table[i] != slot + 1) {
            i = (i + 1) & mask;
        }
        table[i] = 0;
        for (int j = (i + 1) & mask; table[j] != 0; j = (j + 1) & mask) {
            int home = hashes[table[j] - 1] & mask;
            // The entry at j may move to the hole at i unless its home lies cyclically in (i, j].
            boolean stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
            if (!stays) {
                table[i] = table[j];
                table[j] = 0;
                i = j;
            }
        }
        slabGarbage += lengths[slot];
        lengths[slot] = -1;
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, freeCount * 2);
        }
        free[freeCount++] = slot;
        size--;
    }

    /** A view of the key of an occupied slot; it stays valid after the slot is removed. */
    Row key(int slot) {
        return Row.wrap(slab, offsets[slot], lengths[slot]);
    }

    /** Heap bytes of the slots' arrays. */
    long byteSize() {
        return slab.length + 4L * (table.length + offsets.length + lengths.length + hashes.length + free.length);
    }

    /** An upper bound (exclusive) of every slot handed out so far. */
    int capacity() {
        return lengths.length;
    }

    /**
     * Makes room for {@code n} more bytes: into a new slab holding only the live keys when removed
     * keys are half of the old one, else into one twice as large. Never writes over bytes a
     * {@link #key(int)} view may still read.
     */
    private void growSlab(int n) {
        int live = slabUsed - slabGarbage;
        byte[] next = new byte[Math.max(256, Math.max(live + n, slabGarbage >= slabUsed / 2 ? live * 2 : slab.length * 2))];
        if (slabGarbage == 0) {
            System.arraycopy(slab, 0, next, 0, slabUsed);
        } else {
            int at = 0;
            for (int s = 0; s < highWater; s++) {
                if (lengths[s] >= 0) {
                    System.arraycopy(slab, offsets[s], next, at, lengths[s]);
                    offsets[s] = at;
                    at += lengths[s];
                }
            }
            slabUsed = at;
            slabGarbage = 0;
        }
        slab = next;
    }

    int size() {
        return size;
    }

    private void rehash(int length) {
        int[] next = new int[length];
        int mask = length - 1;
        for (int s = 0; s < highWater; s++) {
            if (lengths[s] >= 0) {
                int i = hashes[s] & mask;
                while (next[i] != 0) {
                    i = (i + 1) & mask;
                }
                next[i] = s + 1;
            }
        }
        table = next;
    }

    private static int spread(int h) {
        h *= 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
