package io.engram.service;

import java.io.IOException;
import java.util.List;

/** The newest records of the rejects topic ({@code engram.rejects.v1}), as the console's rejects page reads them. */
interface RejectSource {

    /** A record of the topic: when Kafka received it, and its bytes (a reject.v1 payload, or anything). */
    record Received(long timestampMillis, byte[] value) {
    }

    /** The last {@code perPartition} records of each partition, in no order. */
    List<Received> tail(int perPartition) throws IOException;
}
