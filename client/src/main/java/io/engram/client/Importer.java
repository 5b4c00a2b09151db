package io.engram.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Imports a tenant's records into a target tenant: an Engram export (JSON lines in the published schemas) or a
 * Mem0 listing ({@link Mem0Memories}). Reads one record at a time, so memory stays bounded whatever the input's
 * size; rewrites {@code tenant_id} to the target; validates each with the pipeline's {@link PayloadValidator};
 * hands the valid ones in order, in batches, to a {@link Sink}. A line that cannot be imported is reported with
 * its number and never stops the rest. Records the job derives ({@code derived.v1}) and resume points
 * ({@code cursor.v1}) are counted as skipped. Ids are deterministic (the store's ids come from tenant and
 * record ids), so importing a file twice writes the same records again.
 */
public final class Importer {

    /** What the input is. */
    public enum Format {
        /** An Engram export: one payload per line. */
        ENGRAM,
        /** Mem0 memory objects: JSON lines, a {@code {"results": [...]}} page or an array of them. */
        MEM0;

        /** The format named {@code engram} or {@code mem0}. */
        public static Format named(String name) {
            for (Format f : values()) {
                if (f.name().equalsIgnoreCase(name)) {
                    return f;
                }
            }
            throw new IllegalArgumentException("unknown format '" + name + "' (engram or mem0)");
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Where the valid records go, a batch at a time, in the input's order. */
    public interface Sink<E extends Exception> {
        /** Publishes a batch; returns once every record of it is acknowledged, or throws (the import stops). */
        void publish(List<Payload> batch) throws E;
    }

    /** A line not imported: its number (from 1) and why. */
    public record Rejected(long line, String error) {
    }

    /**
     * What an import did: the records sent per schema, in the order the schemas first appeared; the lines skipped
     * (derived records, resume points); the rejected lines, the first {@value #MAX_LISTED_REJECTS} listed.
     */
    public record Outcome(Map<String, Long> accepted, long skipped, List<Rejected> rejected, long rejectedNotListed) {
        public long acceptedTotal() {
            return accepted.values().stream().mapToLong(Long::longValue).sum();
        }

        public long rejectedTotal() {
            return rejected.size() + rejectedNotListed;
        }
    }

    /** One record read from the input, numbered by the line it starts on, or why it could not be read. */
    record Entry(long line, JsonNode json, String error) {
        static Entry failed(long line, String error) {
            return new Entry(line, null, error);
        }
    }

    /** The records of an input, one at a time. */
    interface Entries {
        /** The next record, or null at the end. */
        Entry next() throws IOException;
    }

    /**
     * Sends each batch through {@code producer} (which validates again, as every send does) and waits for Kafka to
     * acknowledge all of it; a record not acknowledged stops the import.
     */
    public static Sink<IllegalStateException> through(EngramProducer producer) {
        return batch -> {
            List<Future<RecordMetadata>> sends = batch.stream().map(producer::send).toList();
            try {
                for (Future<RecordMetadata> send : sends) {
                    send.get(ACK_SECONDS, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while Kafka acknowledged the records", e);
            } catch (ExecutionException | TimeoutException e) {
                throw new IllegalStateException("Kafka did not acknowledge the records: " + e, e);
            }
        };
    }

    /** A dry run: validates and counts, sends nothing. */
    public static final Sink<RuntimeException> DRY_RUN = batch -> { };
    public static final int MAX_LISTED_REJECTS = 1000;
    /** The schemas of an export's lines that the job derives or that only mark a place: skipped. */
    public static final List<String> SKIPPED_SCHEMAS = List.of("derived.v1", "cursor.v1");
    private static final Pattern TENANT = Pattern.compile("^[a-z0-9][a-z0-9_-]{0,62}$");
    private static final int BATCH_RECORDS = 500;
    private static final long ACK_SECONDS = 30;
    private static final long BATCH_BYTES = 4L * 1024 * 1024;

    private final PayloadValidator validator;
    private final PayloadValidator.Limits limits;

    public Importer(PayloadValidator.Limits limits) {
        this.limits = limits;
        this.validator = new PayloadValidator(limits);
    }

    /** Refuses a target that is not a tenant id, before anything is read. */
    public static String checkTenant(String tenant) {
        if (tenant == null || !TENANT.matcher(tenant).matches()) {
            throw new IllegalArgumentException("'" + tenant + "' is not a tenant id (" + TENANT.pattern() + ")");
        }
        return tenant;
    }

    /** Imports {@code in} into {@code tenant}; stops only when the input cannot be read or {@code sink} throws. */
    public <E extends Exception> Outcome run(InputStream in, String tenant, Format format, Sink<E> sink)
            throws IOException, E {
        checkTenant(tenant);
        Run run = new Run(tenant, format);
        Entries entries = format == Format.ENGRAM ? new ImportLines(in, limits.maxDocumentBytes() + 64 * 1024)
                : new Mem0Memories(in);
        List<Payload> batch = new ArrayList<>();
        long batchBytes = 0;
        for (Entry entry = entries.next(); entry != null; entry = entries.next()) {
            Payload payload = run.payload(entry);
            if (payload == null) {
                continue;
            }
            batch.add(payload);
            batchBytes += payload.bytes().length;
            if (batch.size() >= BATCH_RECORDS || batchBytes >= BATCH_BYTES) {
                sink.publish(List.copyOf(batch));
                batch.clear();
                batchBytes = 0;
            }
        }
        if (!batch.isEmpty()) {
            sink.publish(List.copyOf(batch));
        }
        return run.outcome();
    }

    /** One import's state: its counts, rejects, and the tenant its input names. */
    private final class Run {
        private final String target;
        private final Format format;
        private final Map<String, Long> accepted = new LinkedHashMap<>();
        private final List<Rejected> rejected = new ArrayList<>();
        private long rejectedNotListed;
        private long skipped;
        private String source;

        Run(String target, Format format) {
            this.target = target;
            this.format = format;
        }

        /** The entry as a valid payload of the target tenant, or null when it is skipped or rejected. */
        Payload payload(Entry entry) {
            if (entry.error() != null) {
                return reject(entry.line(), entry.error());
            }
            if (!(entry.json() instanceof ObjectNode json)) {
                return reject(entry.line(), "not_an_object: a record is a JSON object");
            }
            String schema = json.path("schema").asText("");
            if (SKIPPED_SCHEMAS.contains(schema)) {
                skipped++;
                return null;
            }
            PayloadKind kind = PayloadKind.ofSchema(schema);
            if (kind == null || kind == PayloadKind.FORGET) {
                return reject(entry.line(), kind == PayloadKind.FORGET ? "forget.v1: forgets are not imported"
                        : "unknown_schema: " + json.get("schema") + " (an import takes turn.v1, memory.v1 and doc.v1;"
                        + " derived.v1 and cursor.v1 are skipped)");
            }
            String wrongTenant = format == Format.ENGRAM ? sourceTenant(json) : null;
            if (wrongTenant != null) {
                return reject(entry.line(), "invalid_tenant: " + wrongTenant);
            }
            retarget(json);
            Payload payload = Payload.of(kind, json);
            if (validator.validate(payload) instanceof PayloadValidator.Invalid bad) {
                return reject(entry.line(), bad.reason().code() + ": " + bad.message());
            }
            accepted.merge(schema, 1L, Long::sum);
            return payload;
        }

        /**
         * Why the record's {@code tenant_id} is not its export's, or null: an export is one tenant's, so every line
         * names the tenant the first one named; a line naming another is from another file.
         */
        private String sourceTenant(ObjectNode json) {
            JsonNode named = json.get("tenant_id");
            if (named == null || !named.isTextual() || !TENANT.matcher(named.asText()).matches()) {
                return "tenant_id " + named + " is not a tenant id (" + TENANT.pattern() + ")";
            }
            if (source == null) {
                source = named.asText();
            }
            return source.equals(named.asText()) ? null
                    : "tenant_id \"" + named.asText() + "\" is not the export's tenant \"" + source + "\" (its first record's)";
        }

        /** The record as the target tenant's: its tenant, and the store ids its references name. */
        private void retarget(ObjectNode json) {
            json.put("tenant_id", target);
            if (source == null) {
                return;
            }
            for (String field : List.of("source_refs", "supersedes")) {
                if (json.get(field) instanceof ArrayNode refs) {
                    for (int i = 0; i < refs.size(); i++) {
                        String ref = refs.get(i).asText();
                        if (ref.startsWith(source + "/")) { // a store id (tenant/memory_id) of the source tenant
                            refs.set(i, target + ref.substring(source.length()));
                        }
                    }
                }
            }
        }

        private Payload reject(long line, String error) {
            if (rejected.size() < MAX_LISTED_REJECTS) {
                rejected.add(new Rejected(line, error));
            } else {
                rejectedNotListed++;
            }
            return null;
        }

        Outcome outcome() {
            return new Outcome(Collections.unmodifiableMap(new LinkedHashMap<>(accepted)), skipped,
                    List.copyOf(rejected), rejectedNotListed);
        }
    }
}
