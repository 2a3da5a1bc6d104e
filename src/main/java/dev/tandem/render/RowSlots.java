package dev.tandem.render;

import dev.tandem.row.Row;
import java.util.Arrays;

/**
 * A hash map from rows to dense int slots, for operator state kept in primitive arrays indexed by
 * slot. Open addressing with linear probing and backward-shift deletion; freed slots are reused, so
 * the slots stay below {@link #capacity()} and the owner grows its arrays with it. Adding a key is
 * the only operation that allocates (when a table grows); lookups and removals do not.
 */
final class RowSlots {

    /** Slot + 1 at each position of the hash table; 0 is an empty position. */
    private int[] table = new int[16];
    /** The key of each slot, null when free. */
    private Row[] keys = new Row[8];
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
            if (hashes[s] == h && keys[s].equals(key)) {
                return s;
            }
        }
        return -1;
    }

    /** Adds {@code key}, which must be absent, and returns its new slot. The map keeps the row. */
    int add(Row key) {
        if ((size + 1) * 4 > table.length * 3) {
            rehash(table.length * 2);
        }
        int slot;
        if (freeCount > 0) {
            slot = free[--freeCount];
        } else {
            slot = highWater++;
            if (slot == keys.length) {
                keys = Arrays.copyOf(keys, slot * 2);
                hashes = Arrays.copyOf(hashes, slot * 2);
            }
        }
        int h = spread(key.hashCode());
        keys[slot] = key;
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
        keys[slot] = null;
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, freeCount * 2);
        }
        free[freeCount++] = slot;
        size--;
    }

    /** The key of an occupied slot. */
    Row key(int slot) {
        return keys[slot];
    }

    /** An upper bound (exclusive) of every slot handed out so far. */
    int capacity() {
        return keys.length;
    }

    int size() {
        return size;
    }

    private void rehash(int length) {
        int[] next = new int[length];
        int mask = length - 1;
        for (int s = 0; s < highWater; s++) {
            if (keys[s] != null) {
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
