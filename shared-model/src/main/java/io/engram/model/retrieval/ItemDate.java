package io.engram.model.retrieval;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;

/**
 * When a context item was said, or when it holds, as the prompt shows it on a line above the items of that date
 * (docs/api.md, {@code POST /v1/context}): the day it was said, {@code [2026-03-02]}, or, where it has one, the window
 * in which it holds, {@code [valid 2026-01-01 to 2026-06-30]}, {@code [valid from 2026-01-01]}, {@code [valid until
 * 2026-06-30]}. Days are UTC days: a model orders facts by them, and a time of day would make every item a date line
 * of its own.
 *
 * @param said       when it was said (its {@code ts})
 * @param validFrom  when it starts to hold, or null
 * @param validUntil when it stops holding, or null
 */
public record ItemDate(Instant said, Instant validFrom, Instant validUntil) {

    public ItemDate {
        if (said == null) {
            throw new IllegalArgumentException("an item date needs the time the item was said");
        }
    }

    /** A stored record's date: when it was said, and its validity window if it has one. */
    public static ItemDate of(MemoryRecord r) {
        return new ItemDate(r.ts(), r.validFrom(), r.validUntil());
    }

    /** The date of an item said at {@code ts}, with no window. */
    public static ItemDate at(Instant ts) {
        return new ItemDate(ts, null, null);
    }

    /** The line above the items of this date, its line break included: {@code [2026-03-02]\n}. */
    public String line() {
        return "[" + label() + "]\n";
    }

    /** Where the items of this date go among the others: from when it holds, else when it was said. */
    public Instant start() {
        return validFrom != null ? validFrom : said;
    }

    private String label() {
        if (validFrom == null && validUntil == null) {
            return day(said);
        }
        if (validFrom == null) {
            return "valid until " + day(validUntil);
        }
        return validUntil == null ? "valid from " + day(validFrom) : "valid " + day(validFrom) + " to " + day(validUntil);
    }

    private static String day(Instant t) {
        return LocalDate.ofInstant(t, ZoneOffset.UTC).toString();
    }
}
