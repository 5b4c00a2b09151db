package io.engram.model.partition;

/** Where YAML front matter may be: a first line {@code ---}, closed by a later {@code ---} or {@code ...} line. */
final class FrontMatter {

    private FrontMatter() {
    }

    static boolean opensAtStart(String source) {
        int end = lineEnd(source, 0);
        return isFence(source, 0, end, "---");
    }

    static boolean closedAtStart(String source) {
        if (!opensAtStart(source)) {
            return false;
        }
        int start = lineEnd(source, 0) + 1;
        while (start <= source.length()) {
            int end = lineEnd(source, start);
            if (isFence(source, start, end, "---") || isFence(source, start, end, "...")) {
                return true;
            }
            if (end >= source.length()) {
                return false;
            }
            start = end + 1;
        }
        return false;
    }

    private static int lineEnd(String s, int from) {
        int nl = s.indexOf('\n', from);
        return nl < 0 ? s.length() : nl;
    }

    private static boolean isFence(String s, int start, int end, String fence) {
        int e = end;
        while (e > start && Character.isWhitespace(s.charAt(e - 1))) {
            e--;
        }
        return e - start == fence.length() && s.startsWith(fence, start);
    }
}
