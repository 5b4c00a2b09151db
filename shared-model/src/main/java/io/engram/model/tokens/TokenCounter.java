package io.engram.model.tokens;

/** Counts the tokens of a text for budgeting; {@link #id()} names the tokenizer in cache keys. */
public interface TokenCounter {

    int count(CharSequence text);

    /** A stable name of the tokenizer, part of the document cache key. */
    String id();
}
