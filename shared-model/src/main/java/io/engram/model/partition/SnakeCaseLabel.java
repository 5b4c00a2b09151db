package io.engram.model.partition;

import java.util.Locale;

/** An enum labelled in JSON by its constant's name in lower case ({@code LIST_ITEM} is {@code list_item}). */
public interface SnakeCaseLabel {

    /** The constant's name: {@link Enum#name()}. */
    String name();

    /** The snake_case name used in JSON. */
    default String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
