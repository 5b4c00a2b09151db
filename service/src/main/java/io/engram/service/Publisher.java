package io.engram.service;

import io.engram.client.EngramProducer;
import io.engram.client.InvalidPayloadException;
import io.engram.client.Payload;
import java.util.concurrent.Future;

/** Where writes and forgets go: Kafka, through {@link EngramProducer#send}, which validates as the pipeline does. */
interface Publisher {

    /**
     * Sends a payload to its topic; the future completes when Kafka has acknowledged it.
     *
     * @throws InvalidPayloadException when the pipeline would reject it (nothing is sent)
     */
    Future<?> send(Payload payload);
}
