package io.engram.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** The correctness checks of a scale report: each failed one named, with its numbers. Never a time. */
public final class ScaleVerdict {

    private ScaleVerdict() {
    }

    public static List<String> failures(JsonNode r) {
        List<String> out = new ArrayList<>();
        check(out, r.at("/correctness/tenants_with_count_mismatch").asLong() == 0, "tenants whose searchable records"
                + " differ from what was sent: " + r.at("/correctness/tenants_with_count_mismatch"));
        check(out, r.at("/correctness/records_beyond_sent").asLong() == 0, "records beyond what was sent (duplicates): "
                + r.at("/correctness/records_beyond_sent"));
        check(out, r.at("/correctness/tenants_without_document_chunks").asLong() == 0, "tenants without their agent"
                + " document's chunks: " + r.at("/correctness/tenants_without_document_chunks"));
        check(out, r.at("/correctness/sample_differences").asLong() == 0 && r.at("/correctness/sample_documents").asLong() > 0,
                "sample tenants' contents after the kills differ from a run without: " + r.at("/correctness/sample_differences"));
        check(out, r.at("/cross_tenant/foreign_records").asLong() == 0 && r.at("/cross_tenant/errors").asLong() == 0,
                "cross-tenant reads: " + r.get("cross_tenant"));
        check(out, r.at("/forget/user_records_left").asLong() == 0
                        && r.at("/forget/tenant_records_left").asLong() == r.at("/forget/tenant_records_expected").asLong(),
                "the forget of a user left other records than the other users': " + r.get("forget"));
        for (String reads : List.of("reads", "layout_reads")) {
            for (JsonNode read : r.path(reads)) {
                check(out, read.get("errors").asLong() == 0, reads + " of " + read.get("tenant") + read.path("layout")
                        + " failed: " + read.get("errors"));
            }
        }
        return out;
    }

    private static void check(List<String> out, boolean holds, String failure) {
        if (!holds) {
            out.add(failure);
        }
    }
}
