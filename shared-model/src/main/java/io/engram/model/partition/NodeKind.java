package io.engram.model.partition;

/** The kinds of leaf node a document is cut into. */
public enum NodeKind {
    FRONT_MATTER("front_matter"),
    HEADING("heading"),
    PARAGRAPH("paragraph"),
    LIST_ITEM("list_item"),
    BLOCKQUOTE("blockquote"),
    CODE_BLOCK("code_block"),
    HTML_BLOCK("html_block"),
    TABLE("table");

    private final String label;

    NodeKind(String label) {
        this.label = label;
    }

    /** The snake_case name used in JSON. */
    public String label() {
        return label;
    }
}
