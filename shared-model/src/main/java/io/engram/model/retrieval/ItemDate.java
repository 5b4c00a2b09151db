package io.engram.model.retrieval;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * When a context item was said, or when it holds, as the prompt shows it on a line above the items of that date
 * (docs/api.md, {@code POST /v1/context}): the day it was said, {@code 2 Mar 2026:}; for a summary of turns said over
 * several days, the span they were said in, {@code 3 Mar 2026 to 2 Apr 2026:}; or, where it has one, the window
 * in which it holds, {@code valid 1 Jan 2026 to 30 Jun 2026:}, {@code valid from 1 Jan 2026:}, {@code valid until
 * 30 Jun 2026:}. Days are UTC days: a model orders facts by them, and a time of day would make every item a date line
 * of its own. The month by its English name: half the tokens of an ISO date ({@code [2026-03-02]} is 8 tokens to
 * bge-small's tokenizer, {@code 2 Mar 2026:} 5), and no reading of 03/02 as either day or month.
 *
 * @param said       when it was said (its {@code ts}; a summary's, when its last source was)
 * @param validFrom  when it starts to hold, or null
 * @param validUntil when it stops holding, or null
 * @param saidFrom   for a summary whose sources span days, when its first source was said; else null
 */
public record ItemDate(Instant said, Instant validFrom, Instant validUntil, Instant saidFrom) {

    public ItemDate {
        if (said == null) {
            throw new IllegalArgumentException("an item date needs the time the item was said");
        }
    }

    /** The date of an item said at {@code said}, holding from {@code validFrom} until {@code validUntil}. */
    public ItemDate(Instant said, Instant validFrom, Instant validUntil) {
        this(said, validFrom, validUntil, null);
    }

    /** A stored record's date: when it was said (from its first source's day, if earlier), and its window if any. */
    public static ItemDate of(MemoryRecord r) {
        Instant from = r.sourcesFrom();
        boolean span = from != null && LocalDate.ofInstant(from, ZoneOffset.UTC)
                .isBefore(LocalDate.ofInstant(r.ts(), ZoneOffset.UTC));
        return new ItemDate(r.ts(), r.validFrom(), r.validUntil(), span ? from : null);
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

    /** Where the items of this date go among the others: from when it holds, else from when it was said. */
    public Instant start() {
        return validFrom != null ? validFrom : saidFrom != null ? saidFrom : said;
    }

    private String label() {
        if (validFrom == null && validUntil == null) {
            return saidFrom == null ? day(said) : day(saidFrom) + " to " + day(said);
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
