package io.engram.store;

import java.io.Serializable;

/**
 * One connection to the memory index, with its three faces: {@link MemoryReader}, {@link MemoryWriter} and
 * {@link MemoryIndexAdmin}. What opens is a whole store; what a class holds is the face it uses. Operators receive
 * a serializable {@link Factory} and open the store on the task manager, so what reaches them is a store, not an
 * address. {@link OpenSearchMemoryStore} is the implementation; the store's test-jar has an in-memory one, held
 * to it by the same contract test.
 */
public interface MemoryStore extends MemoryReader, MemoryWriter, MemoryIndexAdmin {

    /** Opens a store where it runs: what an operator holds, and serializes with the job graph. */
    interface Factory extends Serializable {
        MemoryStore open();
    }

    @Override
    void close();
}
