package io.engram.launcher;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The methods of a Java source and their lengths, read as text: comments and literals blanked, then every block
 * classified by the text before its opening brace (a type, a method or constructor directly in a type, or
 * anything else). A method's length runs from its first line after any annotations to its closing brace.
 */
final class JavaMethods {

    /** One method or constructor: its name, first line (1-based) and length in lines. */
    record Method(String name, int firstLine, int lines) {
    }

    private static final Pattern TYPE = Pattern.compile("\\b(class|interface|enum|record)\\b");
    private static final Pattern NAME = Pattern.compile("(\\w+)\\s*\\(");
    /** Leading annotations, their arguments nested at most one level deep. */
    private static final Pattern ANNOTATIONS =
            Pattern.compile("(\\s*@[\\w.]+(\\s*\\((?:[^()]|\\([^()]*\\))*\\))?)*\\s*");

    private enum Block { TYPE, METHOD, OTHER }

    private record Open(Block kind, String name, int firstLine) {
    }

    private JavaMethods() {
    }

    static List<Method> of(String source) {
        String code = blanked(source);
        List<Method> methods = new ArrayList<>();
        Deque<Open> open = new ArrayDeque<>();
        int headerFrom = 0;
        for (int i = 0; i < code.length(); i++) {
            char c = code.charAt(i);
            if (c == '{') {
                open.push(opened(code, headerFrom, i, open.isEmpty() ? null : open.peek().kind()));
            } else if (c == '}' && !open.isEmpty()) {
                Open block = open.pop();
                if (block.kind() == Block.METHOD) {
                    methods.add(new Method(block.name(), block.firstLine(), lineOf(code, i) - block.firstLine() + 1));
                }
            }
            if (c == '{' || c == '}' || c == ';') {
                headerFrom = i + 1;
            }
        }
        return methods;
    }

    private static Open opened(String code, int headerFrom, int brace, Block enclosing) {
        Matcher annotations = ANNOTATIONS.matcher(code.substring(headerFrom, brace));
        int from = headerFrom + (annotations.lookingAt() ? annotations.end() : 0);
        String header = code.substring(from, brace).strip();
        boolean expression = header.contains("=") || header.contains("->");
        Matcher type = TYPE.matcher(header);
        if (type.find() && !expression && !header.substring(0, type.start()).contains("(")) {
            return new Open(Block.TYPE, "", 0);
        }
        if (enclosing == Block.TYPE && header.matches("(?s).*\\bnew\\b.*\\)")) {
            return new Open(Block.TYPE, "", 0); // an anonymous class in a field's initializer
        }
        if (enclosing != Block.TYPE || expression || !header.contains("(") || header.matches("(?s).*\\bnew\\b.*")) {
            return new Open(Block.OTHER, "", 0);
        }
        Matcher name = NAME.matcher(header);
        return new Open(Block.METHOD, name.find() ? name.group(1) : "?", lineOf(code, from));
    }

    private static int lineOf(String code, int index) {
        int line = 1;
        for (int i = 0; i < index; i++) {
            if (code.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }

    /** The source with comments, strings, text blocks and character literals blanked, line breaks kept. */
    static String blanked(String s) {
        StringBuilder out = new StringBuilder(s.length());
        int i = 0;
        while (i < s.length()) {
            int end = endOfLiteralOrComment(s, i);
            if (end == i) {
                out.append(s.charAt(i++));
            } else {
                for (int k = i; k < end; k++) {
                    out.append(s.charAt(k) == '\n' ? '\n' : ' ');
                }
                i = end;
            }
        }
        return out.toString();
    }

    /** Where the comment or literal starting at {@code i} ends; {@code i} itself when none starts there. */
    private static int endOfLiteralOrComment(String s, int i) {
        if (s.startsWith("\"\"\"", i)) {
            int end = s.indexOf("\"\"\"", i + 3);
            while (s.charAt(end - 1) == '\\') {
                end = s.indexOf("\"\"\"", end + 1);
            }
            return end + 3;
        }
        if (s.startsWith("//", i)) {
            int end = s.indexOf('\n', i);
            return end < 0 ? s.length() : end;
        }
        if (s.startsWith("/*", i)) {
            return s.indexOf("*/", i + 2) + 2;
        }
        char c = s.charAt(i);
        if (c == '"' || c == '\'') {
            int k = i + 1;
            while (s.charAt(k) != c) {
                k += s.charAt(k) == '\\' ? 2 : 1;
            }
            return k + 1;
        }
        return i;
    }
}
