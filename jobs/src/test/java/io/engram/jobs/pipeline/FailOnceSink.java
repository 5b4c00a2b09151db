package io.engram.jobs.pipeline;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Wraps a sink so that its writer throws once, on the first record after it has seen two checkpoints: by then
 * the first checkpoint is complete (one checkpoint at a time), so the job restores from it mid-stream.
 */
final class FailOnceSink<T> implements Sink<T> {

    private static final long serialVersionUID = 1L;
    /** Shared by the restarted writers of the test JVM: the failure happens once. */
    static final AtomicBoolean FAILED = new AtomicBoolean();

    private final Sink<T> delegate;

    FailOnceSink(Sink<T> delegate) {
        this.delegate = delegate;
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) throws IOException {
        SinkWriter<T> writer = delegate.createWriter(context);
        return new SinkWriter<>() {
            private int checkpoints;

            @Override
            public void write(T element, Context ctx) throws IOException, InterruptedException {
                if (checkpoints >= 2 && FAILED.compareAndSet(false, true)) {
                    throw new IOException("injected task failure after checkpoint");
                }
                writer.write(element, ctx);
            }

            @Override
            public void flush(boolean endOfInput) throws IOException, InterruptedException {
                writer.flush(endOfInput);
                if (!endOfInput) {
                    checkpoints++;
                }
            }

            @Override
            public void close() throws Exception {
                writer.close();
            }
        };
    }
}
