package dev.tandem.trace;

import dev.tandem.row.Row;

/** A cursor over a single batch. */
final class BatchCursor implements Cursor {

    final Batch batch;
    int keyIdx;

    BatchCursor(Batch batch) {
        this.batch = batch;
    }

    @Override
    public boolean keyValid() {
        return keyIdx < batch.keys.count();
    }

    @Override
    public Row key() {
        return batch.keys.row(keyIdx);
    }

    @Override
    public void stepKey() {
        keyIdx++;
    }

    @Override
    public void seekKey(Row key) {
        keyIdx = batch.seekKey(key);
    }

    int valStart() {
        return batch.keyValStart.at(keyIdx);
    }

    int valEnd() {
        return batch.keyValStart.at(keyIdx + 1);
    }

    @Override
    public void accumulate(long t, ValDiff out) {
        batch.accumulate(keyIdx, t, out);
    }

    @Override
    public void forEachUpdate(ValUpdate out) {
        for (int v = valStart(), end = valEnd(); v < end; v++) {
            Row val = batch.vals.row(v);
            for (int u = batch.valUpdStart.at(v), ue = batch.valUpdStart.at(v + 1); u < ue; u++) {
                out.accept(val, batch.time(u), batch.diff(u));
            }
        }
    }
}
