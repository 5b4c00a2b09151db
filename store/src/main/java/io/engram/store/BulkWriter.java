package io.engram.store;

import io.engram.store.StoreWriteException.ItemFailure;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;
import org.opensearch.client.opensearch._types.OpenSearchException;
import org.opensearch.client.opensearch.core.BulkResponse;
import org.opensearch.client.opensearch.core.bulk.BulkOperation;
import org.opensearch.client.opensearch.core.bulk.BulkResponseItem;
import org.opensearch.client.transport.httpclient5.ResponseException;

/**
 * Bulk requests retried only on transient failures ({@link MemoryWriter#upsert}): the whole request again after a
 * lost connection or a 429/502/503/504 answer, the documents answered so again after a partial answer, with the
 * {@link RetryPolicy}'s backoff. A request refused otherwise (a wrong password, a bad request, an untrusted
 * certificate) and documents refused for good fail at once; nothing is dropped silently.
 */
final class BulkWriter {

    private static final Set<Integer> RETRYABLE = Set.of(429, 502, 503, 504);
    private static final Pattern STATUS_LINE = Pattern.compile("status line \\[HTTP/[0-9.]+ (\\d{3})");

    private final OpenSearchHttp http;
    private final RetryPolicy retry;
    private final LongAdder retries = new LongAdder();
    private final LongAdder documentsFailed = new LongAdder();

    BulkWriter(OpenSearchHttp http, RetryPolicy retry) {
        this.http = http;
        this.retry = retry;
    }

    MemoryWriter.WriteStats stats() {
        return new MemoryWriter.WriteStats(retries.sum(), documentsFailed.sum());
    }

    /** Sends the operations, by document id, until each landed or failed for good, or the retry bound is reached. */
    void write(Map<String, BulkOperation> pending) {
        List<ItemFailure> permanent = new ArrayList<>();
        Exception lastError = null;
        for (int attempt = 0; attempt < retry.maxAttempts() && !pending.isEmpty(); attempt++) {
            if (attempt > 0) {
                retries.increment();
                sleep(retry.backoff(attempt - 1).toMillis());
            }
            Exception error = attempt(pending, permanent);
            if (error != null) {
                lastError = error;
            }
        }
        documentsFailed.add(permanent.size() + pending.size());
        if (!permanent.isEmpty()) {
            throw new StoreWriteException("OpenSearch refused " + permanent.size() + " documents", permanent, lastError);
        }
        if (!pending.isEmpty()) {
            List<ItemFailure> left = new ArrayList<>();
            pending.keySet().forEach(id -> left.add(new ItemFailure(id, 0, "not written")));
            throw new StoreWriteException(pending.size() + " documents not written after " + retry.maxAttempts()
                    + " attempts", left, lastError);
        }
    }

    /**
     * One bulk request of everything pending: removes what landed or failed for good, and returns the reason to
     * try again (null when nothing is left to retry).
     */
    private Exception attempt(Map<String, BulkOperation> pending, List<ItemFailure> permanent) {
        BulkResponse response;
        try {
            List<BulkOperation> operations = new ArrayList<>(pending.values());
            response = http.client().bulk(b -> b.operations(operations));
        } catch (IOException | OpenSearchException e) {
            failIfPermanent(e, pending.size());
            return e; // connection loss, or an overloaded or restarting node: retry everything pending
        }
        List<ItemFailure> retryable = new ArrayList<>();
        for (BulkResponseItem item : response.items()) {
            if (item.error() == null || (item.status() == 404 && item.result() != null) || missing(item)) {
                pending.remove(item.id());
            } else if (RETRYABLE.contains(item.status())) {
                retryable.add(new ItemFailure(item.id(), item.status(), item.error().reason()));
            } else {
                pending.remove(item.id());
                permanent.add(new ItemFailure(item.id(), item.status(), item.error().type() + ": " + item.error().reason()));
            }
        }
        return retryable.isEmpty() ? null : new StoreWriteException("items to retry", retryable, null);
    }

    /** An update of a document that is not there (forgotten, expired): left absent, as asked. */
    private static boolean missing(BulkResponseItem item) {
        return item.status() == 404 && "document_missing_exception".equals(item.error().type());
    }

    /** Throws when a failed request will fail again: an answer other than 429/502/503/504, or a TLS failure. */
    private void failIfPermanent(Exception e, int documents) {
        int status = statusOf(e);
        if (status != 0 && !RETRYABLE.contains(status)) {
            // refused for good (a wrong password, a bad request): retrying only delays the failure
            documentsFailed.add(documents);
            throw new StoreWriteException("OpenSearch refused the bulk request with HTTP " + status
                    + (status == 401 || status == 403 ? " (check " + http.credentials() + ")" : "")
                    + ": " + e.getMessage(), List.of(), e);
        }
        SSLException tls = tlsFailure(e);
        if (tls != null) { // a certificate not trusted stays untrusted: no retry
            documentsFailed.add(documents);
            throw new StoreWriteException("OpenSearch's TLS handshake failed, " + tls.getMessage()
                    + " (opensearch.tls.ca names the authority to trust)", List.of(), e);
        }
    }

    /** The TLS failure in an exception's chain (an untrusted certificate, a host name it does not name), or null. */
    private static SSLException tlsFailure(Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SSLException tls) {
                return tls;
            }
        }
        return null;
    }

    /**
     * The HTTP status a whole request was answered with, or 0 when no answer came (connection loss, timeout).
     * The client wraps an error answer in layers (an IOException around a TransportException around the
     * response), so the chain is searched.
     */
    private static int statusOf(Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof OpenSearchException refused) {
                return refused.status();
            }
            if (t instanceof ResponseException) {
                // an answer that is not an OpenSearch error body: its message holds "status line [HTTP/1.1 503 …]"
                Matcher status = STATUS_LINE.matcher(String.valueOf(t.getMessage()));
                if (status.find()) {
                    return Integer.parseInt(status.group(1));
                }
            }
        }
        return 0;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while backing off", e);
        }
    }
}
