package io.engram.model.deontic;

import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What the headings above a text say about it (docs/algorithms.md, "Deontic lexer"). Under "Coding Style &amp;
 * Naming Conventions" or "Testing Requirements" a list of present-tense statements is a list of rules ("Errors use
 * {@code anyhow::Result}."); under "Never" or "Do Not" each instruction is a prohibition. Elsewhere the same
 * sentences describe ("Tests live per-crate under {@code tests/}" under "Project Structure").
 */
public enum SectionKind {
    /** No heading above the text names rules. */
    PLAIN,
    /** A heading above the text names rules, conventions, guidelines, standards or requirements. */
    RULES,
    /** The nearest heading names prohibitions ("Never", "Do Not", "Avoid"): its instructions forbid. */
    PROHIBITIONS,
    /**
     * A heading above names commands and none names rules ("Development Commands"): "Run all checks: `make
     * check`" there is a command's reference, not an instruction.
     */
    COMMANDS;

    /** Words of a heading that make the list below it a list of rules ("Best Practices", "Code Style"). */
    private static final Set<String> RULE_WORDS = Set.of(
            "rule", "rules", "convention", "conventions", "guideline", "guidelines", "standard", "standards",
            "requirement", "requirements", "style", "practices", "principle", "principles", "policy", "policies",
            "constraint", "constraints", "boundaries", "mandatory", "etiquette", "must", "dos", "identity");
    /**
     * Words of a heading about setting up: "Requirements" under "Development Setup" or "System Requirements" lists
     * what to install ("Node.js: v22 or v24"), not rules.
     */
    private static final Set<String> SETUP_WORDS = Set.of(
            "setup", "install", "installation", "installing", "prerequisite", "prerequisites", "environment", "system");
    private static final Set<String> REQUIREMENT = Set.of("requirement", "requirements");
    /** A heading that is a prohibition in itself: "Never", "Do Not", "Don'ts", "Things to avoid", "What not to do". */
    private static final Pattern PROHIBITION_HEADING = Pattern.compile(
            "(never|do not|don'?ts?|avoid|forbidden|prohibited|not allowed|things to avoid|what not to do"
                    + "|what (i|you) (will|must|should) not do|what (i|you) (won'?t|don'?t) do)( .*)?");

    /**
     * The kind of text under {@code headingPath}: its headings, outermost first, each as an ATX heading line
     * ({@code "## Coding Style"}; may be empty). A level-1 heading is the document's title ("# Repository
     * Guidelines") and names no list, so only the nearest heading can make a level-1 section a prohibition list.
     */
    public static SectionKind of(List<String> headingPath) {
        if (headingPath.isEmpty()) {
            return PLAIN;
        }
        if (PROHIBITION_HEADING.matcher(words(headingPath.get(headingPath.size() - 1))).matches()) {
            return PROHIBITIONS;
        }
        boolean commands = false;
        boolean setup = false;
        for (String heading : headingPath) {
            String[] words = words(heading).split(" ");
            for (String word : words) {
                setup |= SETUP_WORDS.contains(word);
            }
            if (!heading.startsWith("##")) {
                continue;
            }
            for (String word : words) {
                if (RULE_WORDS.contains(word) && !(setup && REQUIREMENT.contains(word))) {
                    return RULES;
                }
                commands |= word.equals("command") || word.equals("commands");
            }
        }
        return commands ? COMMANDS : PLAIN;
    }

    /** The heading's words in lower case, its '#' marks, markup and punctuation dropped, one space between them. */
    private static String words(String heading) {
        StringBuilder out = new StringBuilder(heading.length());
        boolean space = false;
        for (int i = 0; i < heading.length(); i++) {
            char c = heading.charAt(i);
            if (c == '\u2019') {
                c = '\'';
            }
            if (Character.isLetterOrDigit(c) || c == '\'') {
                if (space && !out.isEmpty()) {
                    out.append(' ');
                }
                space = false;
                out.append(Character.toLowerCase(c));
            } else {
                space = true;
            }
        }
        return out.toString();
    }
}
