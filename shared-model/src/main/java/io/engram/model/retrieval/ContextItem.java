package io.engram.model.retrieval;

/**
 * One piece of text that may go into an assembled context.
 *
 * @param id     the memory record's id
 * @param type   what it is
 * @param text   the text as it would be injected
 * @param tokens its token count
 * @param score  retrieval score (memories); 0 for rules and tail turns
 * @param date   when it was said or holds, shown before its text; null for none (rules: they hold while loaded)
 */
public record ContextItem(String id, RecordType type, String text, int tokens, double score, ItemDate date) {

    public ContextItem {
        if (tokens < 0) {
            throw new IllegalArgumentException("tokens must not be negative: " + tokens);
        }
    }

    /** An undated item. */
    public ContextItem(String id, RecordType type, String text, int tokens, double score) {
        this(id, type, text, tokens, score, null);
    }

    /** A stored record as a context item with {@code score}, dated unless it is a rule. */
    public static ContextItem of(MemoryRecord r, double score) {
        return new ContextItem(r.id(), r.type(), r.text(), r.tokens(), score,
                r.type() == RecordType.INVARIANT ? null : ItemDate.of(r));
    }
}
