package io.engram.store;

import java.util.function.Supplier;

/** The answer of one queued read, readable once its batch has run ({@link MemoryReader.ReadBatch}). */
final class PendingAnswer<T> implements Supplier<T> {

    private T value;
    private boolean ready;

    void fill(T answer) {
        value = answer;
        ready = true;
    }

    @Override
    public T get() {
        if (!ready) {
            throw new IllegalStateException("read before its batch ran");
        }
        return value;
    }
}
