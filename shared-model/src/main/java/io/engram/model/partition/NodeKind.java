package io.engram.model.partition;

/** The kinds of leaf node a document is cut into. */
public enum NodeKind implements SnakeCaseLabel {
    FRONT_MATTER,
    HEADING,
    PARAGRAPH,
    LIST_ITEM,
    BLOCKQUOTE,
    CODE_BLOCK,
    HTML_BLOCK,
    TABLE
}
