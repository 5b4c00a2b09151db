package io.engram.store;

import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import java.time.Instant;
import java.util.List;

/**
 * The memory index as the job's writer changes it. Every change names its tenant (a record carries its own), and
 * every change is idempotent: ids are deterministic ({@link RecordIds}), so a replay after a restore writes the
 * same documents and deletes nothing more.
 */
public interface MemoryWriter extends AutoCloseable {

    /**
     * Indexes the records (insert or overwrite by id). A transient failure (a lost connection, an overloaded or
     * restarting node) is retried with backoff ({@link RetryPolicy}); a request refused otherwise, documents
     * refused for good (a vector of the wrong dimension) and documents still failing after the retry bound end in
     * a {@link StoreWriteException} naming them, and the others are written. Anything else thrown is a bug.
     */
    void upsert(List<MemoryRecord> records);

    /** Deletes records by id (a missing id is not an error). */
    void delete(String tenantId, List<String> ids);

    /** What supersedes a stored memory as the writer decided it: {@code by} from {@code at}, or null and null for none. */
    record Superseded(String id, String by, Instant at) {
    }

    /**
     * Sets what supersedes stored memories ({@code superseded_by}, {@code superseded_at}), leaving their other
     * fields as they are. A memory not stored (never, or no more: forgotten, expired) stays absent: nothing is
     * written back to life.
     */
    void supersede(String tenantId, List<Superseded> marks);

    /** Deletes the tenant's records of {@code type} whose {@code ts} is before {@code cutoff}; returns how many. */
    long deleteOlderThan(String tenantId, RecordType type, Instant cutoff);

    /** How many records {@link #deleteOlderThan} would delete now (those just written included). */
    long countOlderThan(String tenantId, RecordType type, Instant cutoff);

    /**
     * Removes the chunks of older versions of one document ({@code invariant} and {@code lore} records whose
     * {@code doc_version} is below {@code keepVersion}); returns how many were deleted. Chunks written just before
     * are deleted too.
     */
    long deleteOlderDocumentVersions(String tenantId, String agentId, String docPath, long keepVersion);

    /**
     * Deletes what a forget covers now (docs/contracts.md, "Forgetting"): a record and everything whose
     * {@code source_refs} name it (for a turn, also the summaries of its session that name its turn id); a
     * session's records, summaries included; a user's records and every record of that user's sessions; every
     * record of the tenant, of every type (its deletion). Idempotent: a replay deletes nothing more. Returns how
     * many records it deleted.
     */
    long forget(String tenantId, ForgetScope scope, String target);

    /**
     * What writing cost since this store opened: requests sent again after a transient failure (of the request
     * or some of its documents) and documents that ended in a {@link StoreWriteException}.
     */
    record WriteStats(long retries, long documentsFailed) {
    }

    /** The {@link WriteStats} so far; safe to read from another thread. */
    WriteStats writeStats();

    @Override
    void close();
}
