package io.engram.store;

import java.util.UUID;

/** The store contract on the in-memory store the harness tests use. */
class InMemoryMemoryStoreContractTest extends MemoryStoreContract {

    /** In-memory indices live as long as the JVM: this run's have names of their own. */
    private final String run = UUID.randomUUID().toString();

    @Override
    protected MemoryStore open(String name) {
        return new InMemoryMemoryStore(name + "-" + run);
    }
}
