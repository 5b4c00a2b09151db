package io.engram.model.partition;

import io.engram.model.partition.InvalidDocumentException.Reason;

/**
 * Refuses documents nested deeper than a bound before commonmark sees them: its block parser re-checks every
 * open container on every line, so 10,000 nested list levels take minutes. The depth of a line is estimated
 * from its prefix: quote markers, list markers, and two columns of indentation per level. Lines inside
 * fenced code blocks are skipped (their indentation is content).
 */
final class NestingGuard {

    private NestingGuard() {
    }

    static void check(String source, int maxDepth) throws InvalidDocumentException {
        boolean inFence = false;
        int line = 1;
        int i = 0;
        int n = source.length();
        while (i < n) {
            int depth = 0;
            int column = 0;
            int j = i;
            // the line prefix: spaces, tabs, '>' and list markers
            while (j < n) {
                char c = source.charAt(j);
                if (c == ' ') {
                    column++;
                } else if (c == '\t') {
                    column += 4 - (column % 4);
                } else if (c == '>') {
                    depth++;
                } else if ((c == '-' || c == '*' || c == '+') && j + 1 < n && source.charAt(j + 1) == ' ') {
                    depth++;
                } else {
                    break;
                }
                j++;
            }
            if (source.startsWith("```", j) || source.startsWith("~~~", j)) {
                inFence = !inFence;
            } else if (!inFence && depth + column / 2 > maxDepth) {
                throw new InvalidDocumentException(Reason.NESTING_TOO_DEEP,
                        "nesting deeper than " + maxDepth + " levels at line " + line);
            }
            int nl = source.indexOf('\n', j);
            i = nl < 0 ? n : nl + 1;
            line++;
        }
    }
}
