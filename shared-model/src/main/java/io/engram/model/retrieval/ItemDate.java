package io.engram.model.retrieval;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * When a context item was said, or when it holds, as the prompt shows it on a line above the items of that date
 * (docs/api.md, {@code POST /v1/context}): the day it was said, {@code 2 Mar 2026:}, or, where it has one, the window
 * in which it holds, {@code valid 1 Jan 2026 to 30 Jun 2026:}, {@code valid from 1 Jan 2026:}, {@code valid until
 * 30 Jun 2026:}. Days are UTC days: a model orders facts by them, and a time of day would make every item a date line
 * of its own. The month by its English name: half the tokens of an ISO date ({@code [2026-03-02]} is 8 tokens to
 * bge-small's tokenizer, {@code 2 Mar 2026:} 5), and no reading of 03/02 as either day or month.
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

    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("d MMM yyyy", Locale.ENGLISH);

    /** The line above the items of this date, its line break included: {@code 2 Mar 2026:\n}. */
    public String line() {
        return label() + ":\n";
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
        return DAY.format(LocalDate.ofInstant(t, ZoneOffset.UTC));
    }
}
