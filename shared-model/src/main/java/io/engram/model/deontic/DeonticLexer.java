package io.engram.model.deontic;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds rules addressed to the agent in a text (docs/algorithms.md, "Deontic lexer"): second-person modal
 * phrases ("you must", "you may not"), modals whose subject is the agent's work ("Every PR must include a
 * benchmark"), sentence-initial imperatives — a closed list of verbs, and any word that can be a base-form verb
 * followed by what an object starts with ("Spawn a coding agent") — identity and role instructions ("You are a
 * …", "You are Oracle — …", "I am C-3PO, …"), labelled rules ("FORBIDDEN: …"), terse norms ("No filler."),
 * escalation lines ("… → Seraph") and their Chinese counterparts ("你必须", "不要", "你是"). Given the
 * {@link SectionKind} of the headings above the text, it also reads a rule list's present-tense conventions
 * ("Errors use {@code anyhow::Result}.", "Line length: 120 chars maximum") and a prohibition list's
 * instructions ("## Never" … "Edit generated files") as rules.
 *
 * <p>What is not a rule: a modal whose subject is other people ("Reviewers must approve"), "you can"/"you may"
 * in the middle of a sentence ("a script you can run"), anything inside the leading subordinate clause of a
 * sentence ("If you must …, …") — the main clause after its comma is read — and code spans, which are opaque.
 * Markdown emphasis ({@code **must**}), zero-width and bidi characters do not hide a rule.
 *
 * <p>The scan walks the text once, clause by clause, and keeps token boundaries in int arrays reused for the
 * whole text: it allocates nothing per character, only per rule found. All state is per call, so one
 * instance serves every thread.
 */
public final class DeonticLexer {

    private static final WordSet FILLERS = new WordSet(
            "please", "also", "then", "and", "so", "but", "just", "first", "finally", "next", "now",
            "instead", "additionally", "otherwise", "again", "still", "simply", "normally", "usually", "generally",
            "typically", "ideally", "preferably", "immediately");
    private static final WordSet SUBORDINATORS = new WordSet(
            "if", "when", "whenever", "before", "after", "once", "unless", "while", "where", "wherever",
            "for", "in", "on", "to", "during", "since", "because", "as", "although", "though", "until",
            "with", "without", "by", "at", "from", "under", "within", "whether");
    private static final WordSet ADVERBS = new WordSet(
            "always", "also", "still", "really", "absolutely", "generally", "usually", "only", "strictly",
            "then", "now", "first", "just", "definitely", "certainly", "truly", "therefore", "thus",
            "all", "both", "each", "simply", "actually", "ideally");
    private static final WordSet OBLIGATION_MODALS = new WordSet("must", "should", "shall");
    private static final WordSet NEGATED_OBLIGATION_MODALS = new WordSet(
            "mustn't", "shouldn't", "shan't", "mustnt", "shouldnt");
    private static final WordSet NEGATIONS = new WordSet("not", "never");
    private static final WordSet CANNOT = new WordSet("cannot", "can't", "cant");
    private static final WordSet DONT = new WordSet("don't", "dont");
    private static final WordSet HAVE_NEED = new WordSet("have", "need");
    private static final WordSet YOU_ARE = new WordSet("you're", "youre");
    private static final WordSet ARE_NOT = new WordSet("aren't", "arent");
    private static final WordSet OBLIGED = new WordSet("required", "expected", "supposed", "obliged", "obligated", "encouraged");
    private static final WordSet ALLOWED = new WordSet("allowed", "permitted", "free", "welcome", "able");
    private static final WordSet BANNED = new WordSet("forbidden", "prohibited", "banned");
    private static final WordSet IDENTITY_OPENERS = new WordSet("a", "an", "the", "my", "our", "his", "her", "their");
    private static final WordSet ROLE_NOUNS = new WordSet(
            "role", "job", "task", "goal", "purpose", "mission", "responsibility", "priority", "objective",
            "directive", "duty", "mandate");
    /** A clause of one or two of these before a colon labels the next one as a rule ("FORBIDDEN: …"). */
    private static final WordSet FORBIDDING_LABELS = new WordSet(
            "forbidden", "never", "prohibited", "banned", "don't", "don'ts", "avoid", "anti-patterns", "anti-pattern",
            "antipatterns");
    private static final WordSet OBLIGING_LABELS = new WordSet("always", "required", "mandatory", "must", "rule");
    /** Subjects whose obligations bind people, not the agent or its work ("Reviewers must approve"). */
    private static final WordSet PEOPLE = new WordSet(
            "reviewer", "reviewers", "maintainer", "maintainers", "user", "users", "human", "humans", "people",
            "customer", "customers", "someone", "anyone", "everyone", "nobody", "owner", "owners",
            "admin", "admins", "administrator", "administrators", "operator", "operators", "team", "teams");
    private static final WordSet NECESSARY = new WordSet(
            "crucial", "important", "essential", "recommended", "required", "necessary", "mandatory", "vital", "critical");
    private static final WordSet IT_IS = new WordSet("it's", "its");
    /** Between "it is" and "important": "It is extremely important that …". */
    private static final WordSet INTENSIFIERS = new WordSet(
            "highly", "very", "extremely", "especially", "particularly", "critically", "super", "so", "most");
    /** What a statement of leave says of its subject: "Relative imports are acceptable …" (negated, it forbids). */
    private static final WordSet ACCEPTABLE = new WordSet("acceptable", "allowed", "permitted", "fine", "ok", "okay");
    /** A convention's verb after one of these is its subject's relative clause, not the convention's. */
    private static final WordSet RELATIVE_PRONOUNS = new WordSet("that", "which", "who", "whose");
    /** Words a base-form verb at the start of an instruction is typically followed by: its object or a preposition. */
    private static final WordSet IMPERATIVE_FOLLOWERS = new WordSet(
            "a", "an", "the", "any", "every", "each", "all", "your", "its", "their", "this", "that", "these", "those",
            "own", "some", "no", "it", "them", "him", "her", "me", "us", "what", "who", "whom", "how", "why", "where",
            "whether", "what's", "when", "which", "on", "with", "to", "in", "into", "from", "by", "about", "through",
            "without", "up", "down", "out", "off", "away", "back", "together");
    /** Words that take "of" after a verb's object position: "Edit any of these", "Read all of the logs". */
    private static final WordSet QUANTIFIERS = new WordSet("any", "all", "each", "some", "both", "either", "none", "most");
    /** Words after a participle that make it a convention's verb: "Slow tests gated with `@slow`". */
    private static final WordSet PARTICIPLE_LINKS = new WordSet(
            "with", "by", "behind", "via", "through", "under", "using", "in", "into", "as", "to", "from", "on");
    /** The most tokens of a convention stated with a participle and no "are": "Slow tests gated with `@slow`". */
    private static final int PARTICIPLE_CONVENTION_TOKENS = 12;
    /** Objects that point back at what a label names: "**`adk-git`**: Use this skill …". */
    private static final WordSet BACK_REFERENCES = new WordSet("this", "it", "these");
    /** Verbs whose object is a clause: "Assume watch is running", "Ensure tests are green". */
    private static final WordSet CLAUSE_VERBS = new WordSet("assume", "ensure", "verify", "confirm", "remember");
    /**
     * Every word WordNet 3.1 lists as a verb (8,431; a resource beside this class, with WordNet's licence): what a
     * word must be to start an instruction the closed list does not know ("Celebrate", "Ground"), where "Python" or
     * "Monorepo" before a preposition names a thing.
     */
    private static final WordSet WORDNET_VERBS = WordSet.ofResource(DeonticLexer.class, "wordnet-verbs.txt");
    /** Verbs of software work WordNet does not list. */
    private static final WordSet SOFTWARE_VERBS = new WordSet(
            "lint", "grep", "dockerize", "upsert", "deserialize", "tokenize", "parametrize", "parameterize", "memoize",
            "benchmark", "reindex", "hardcode", "backport", "uninstall");

    /** Words that start clauses but are not verbs, however they are followed. */
    private static final WordSet NOT_VERBS = new WordSet(
            "the", "and", "this", "that", "these", "those", "there", "here", "it", "its", "all", "some", "any", "each", "every", "most",
            "many", "much", "more", "other", "such", "what", "which", "who", "how", "why", "where", "when", "our",
            "their", "his", "her", "one", "both", "either", "neither", "same", "only", "also", "just", "even", "yes",
            "not", "per", "via", "like", "unlike", "time", "whose", "today", "example", "default", "support",
            "access", "changes", "information", "details", "note", "part", "thanks", "welcome", "hello");
    /** The most words of a terse prohibition: "No filler.", "No silent corruption, no missing rows, no mystery nulls." */
    private static final int TERSE_WORDS = 10;
    private static final WordSet SURE = new WordSet("sure", "certain");
    /** A word after the first one that makes the first a noun ("Build artifacts are …", "Use of …"). */
    private static final WordSet NOUN_SIGNALS = new WordSet(
            "is", "are", "was", "were", "has", "have", "had", "will", "would", "can", "could", "should", "must",
            "may", "might", "does", "did", "of", "'s", "lives", "live", "goes", "runs", "uses", "means");
    /**
     * How a persona does its work, in the second person: "You work directly", "You delegate … to coding agents".
     * Verbs of perceiving or knowing ("You see what others miss", "You understand …") characterise, and are not here.
     */
    private static final WordSet WORKING_VERBS = new WordSet(
            "work", "delegate", "assist", "explain", "produce", "escalate", "report", "route", "respond", "reply",
            "answer", "review", "verify", "handle", "own", "write");
    /** Verbs of a convention stated in the present tense under a rule heading: "Errors use …", "PRs include …". */
    private static final WordSet CONVENTION_VERBS = new WordSet(
            "use", "uses", "include", "includes", "require", "requires", "implement", "implements", "follow",
            "follows", "need", "needs", "go", "goes", "belong", "belongs", "live", "lives", "start", "starts", "end",
            "ends", "extend", "extends", "return", "returns", "match", "matches", "mirror", "mirrors", "stay", "stays");
    /** Words a convention's subject does not start with: it names a kind of thing ("Errors", "New features"). */
    private static final WordSet NOT_CONVENTION_SUBJECTS = new WordSet(
            "the", "this", "that", "these", "those", "it", "its", "we", "i", "they", "he", "she", "there", "here",
            "a", "an", "our", "my", "your", "if", "when", "while", "what", "which", "who", "how", "why", "one", "some",
            "most");
    /** Labels whose text explains rather than prescribes ("Rationale: …", "Example: …"). */
    private static final WordSet EXPLAINING_LABELS = new WordSet(
            "rationale", "explanation", "note", "notes", "example", "examples", "why", "reason", "reasons",
            "background", "context", "see", "benefit", "benefits", "tip", "tips", "hint", "summary", "description",
            "result", "results", "status");
    /** Prefixes that make a hyphenated verb a noun or an adjective: "pre-commit hook", "non-blocking". */
    private static final WordSet NOUN_PREFIXES = new WordSet("pre", "post", "non", "sub", "multi", "self", "cross", "anti");
    /** The most words of a label whose value can be a convention: "Line length:", "Coverage:". */
    private static final int VALUE_LABEL_WORDS = 4;
    /** The most words of a command's caption: "**Run with JavaScript exception scope verification**: `…`". */
    private static final int COMMAND_CAPTION_WORDS = 8;
    /** The most tokens of a convention's value after its label: "120 chars maximum", "oxfmt (via `pnpm fix`)". */
    private static final int CONVENTION_VALUE_WORDS = 8;
    /** Words opening an embedded clause: a modal right after its subject there is not the sentence's. */
    private static final WordSet EMBEDDING_WORDS = new WordSet(
            "where", "wherever", "when", "whenever", "as", "how", "what", "whatever");
    /** Copulas: a label's value that is a statement about something describes ("IMPORTANT: The file is …"). */
    private static final WordSet COPULAS = new WordSet("is", "are", "was", "were", "isn't", "aren't");
    private static final WordSet IMPERATIVE_VERBS = new WordSet(
            "add", "adhere", "aim", "analyse", "append", "analyze", "annotate", "answer", "apply", "ask", "assess", "assume",
            "attach", "author", "build", "bump", "call", "celebrate", "change", "check", "choose", "cite", "clarify", "classify", "clean",
            "close", "collect", "comment", "commit", "communicate", "compare", "confirm", "consider", "consult",
            "continue", "coordinate", "copy", "create", "cut", "decide", "declare", "define", "delegate", "delete",
            "deploy", "describe", "detect", "determine", "disable", "document", "double-check", "draft", "drop", "earn", "edit", "emit",
            "enable", "ensure", "escalate", "evaluate", "exhaust", "explain", "export", "extend", "favor", "favour",
            "fetch", "fill", "find", "fix", "flag", "focus", "follow", "format", "gather", "give", "go",
            "handle", "have", "help", "identify", "ignore", "implement", "import", "include", "inform", "inspect", "install", "introduce",
            "invoke", "judge",
            "investigate", "keep", "label", "leave", "let", "limit", "link", "load", "look", "maintain",
            "mark", "memorize", "memorise", "mention", "merge", "minimize", "minimise", "mirror", "move", "name", "note", "notify", "open", "pass", "perform",
            "pin", "place", "plan", "prefix", "prepare", "preserve", "prioritize", "prioritise", "produce", "protect",
            "provide", "publish", "pull", "push", "put", "quote", "raise", "read", "rebase", "rebuild",
            "record", "redact", "reduce", "refactor", "refer", "reference", "refuse", "regenerate", "reject",
            "re-read", "rely", "remember", "remove", "rename", "repeat", "reply", "report", "reproduce", "request", "rerun",
            "re-run", "reserve", "resolve", "respect", "respond", "restart", "restrict", "return", "reuse", "review",
            "rewrite", "run", "save", "say", "search", "see", "seek", "select", "send", "set", "share", "show",
            "skip", "sort", "spawn", "speak", "specify", "split", "squash", "stage", "start", "state", "stay",
            "stick", "stop", "store", "structure", "submit", "suggest", "summarize", "summarise", "supply",
            "surface", "switch", "take", "target", "tell", "think", "treat", "trust", "try", "type",
            "update", "upgrade", "use", "utilize", "validate", "verify", "wait", "warn", "watch", "work", "wrap", "write",
            // verbs that start instructions whatever follows them ("Proceed on …", "Match existing …")
            "advance", "anchor", "assemble", "assist", "augment", "balance", "bring", "bundle", "comply", "cover",
            "deliver", "discover", "double", "embed", "enhance", "enter", "exceed", "feed", "filter", "increment",
            "insist", "lower", "match", "monitor", "offer", "order", "persist", "proceed", "query", "register",
            "render", "reveal", "seed", "signal", "succeed", "tailor", "trigger");

    private static final String[] CJK_FORBIDDEN_OPENERS = {
        "永远不要", "绝对不要", "千万不要", "不要", "不许", "不得", "不可", "切勿", "禁止", "避免", "别"};
    /** "不" + verb ("不发", "不夸大") forbids, but "不是"/"不只" describe. */
    private static final String[] CJK_NOT_A_RULE_AFTER_NOT = {"是", "只", "仅", "同", "会"};
    private static final String[] CJK_OBLIGATORY_OPENERS = {
        "务必", "必须", "一定要", "始终", "总是", "永远", "确保", "记住", "记得", "告诉", "保持", "遵守", "遵循", "优先",
        "尽量"};
    private static final String[] CJK_FORBIDDEN_MODALS = {
        "不应该", "不可以", "不要", "不能", "不得", "不应", "禁止", "绝不", "别"};
    private static final String[] CJK_OBLIGATORY_MODALS = {"必须", "应该", "应当", "需要", "务必", "得"};
    private static final String[] CJK_PERMITTED_MODALS = {"可以", "能"};
    private static final String[] CJK_ADVERBS = {"也", "还", "都", "就", "一定", "总是", "永远"};

    /** ASCII letters and digits: the common case of {@link #isWordChar}, without a Unicode table lookup. */
    private static final boolean[] ASCII_WORD = new boolean[128];

    static {
        for (char c = '0'; c <= '9'; c++) {
            ASCII_WORD[c] = true;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            ASCII_WORD[c] = true;
            ASCII_WORD[c - 32] = true;
        }
    }

    private static boolean isWordChar(char c) {
        return c < 128 ? ASCII_WORD[c] : Character.isLetterOrDigit(c) || WordSet.ignorable(c);
    }

    private static final int WORD = 0;
    private static final int CODE = 1;
    private static final int MAX_ACTION_CHARS = 200;
    private static final String TRAILING_PUNCTUATION = ",;:-\u2014()\"'";

    /** The rules in {@code text}, in order of appearance, read without the headings above it. */
    public List<Rule> rules(CharSequence text) {
        return rules(text, SectionKind.PLAIN);
    }

    /** The rules in {@code text}, in order of appearance, read under headings of the given kind. */
    public List<Rule> rules(CharSequence text, SectionKind section) {
        Scan scan = SCANS.get();
        // the rules of this call only: the reused scanner holds nothing a failed call could leave behind
        List<Rule> found = new ArrayList<>(2);
        scan.reset(text, found, section);
        scan.run();
        return found.isEmpty() ? List.of() : List.copyOf(found);
    }

    /** One scanner per thread: its buffers are reused from text to text instead of allocated per call. */
    private static final ThreadLocal<Scan> SCANS = ThreadLocal.withInitial(Scan::new);

    /** One pass over one text: clause boundaries, tokens of the current clause, rules found. */
    private static final class Scan {
        private char[] text = new char[256];
        private int length;
        private List<Rule> rules;
        private int[] starts = new int[64];
        private int[] ends = new int[64];
        private byte[] types = new byte[64];
        private char[] actionBuffer;
        /** {@link WordSet#hash} of each word token, computed on first use (0 = not yet). */
        private int[] hashes = new int[64];
        private int count;
        private int[] commaTokens = new int[8];
        private int commas;
        /** How many parentheses are open at the scan's position in the clause. */
        private int parentheses;
        private boolean hasHan;
        private int clauseStart;
        private int clauseEnd;
        /** The previous clause was only code and ended with ':' — this one defines it ("`make lint`: run …"). */
        private boolean definesCode;
        private boolean onlyCode;
        private char boundary;
        /** The previous clause was a rule label ("Never:", "FORBIDDEN:"): this one is a rule of that modality. */
        private Modality labelled;
        /** The previous clause was a short label opening a sentence ("Line length:"): this one is its value. */
        private boolean labelValue;
        /** The clause follows a sentence-opening label of up to {@link #COMMAND_CAPTION_WORDS} words and a colon. */
        private boolean captionValue;
        /** The clause follows a clause that opens its sentence and ends at a colon, of any words. */
        private boolean valueOfLabel;
        /** Where the rules of the previous clause start in {@link #rules}. */
        private int previousClauseRules;
        private SectionKind section;

        /** Copies the text into the reused buffer: the scan reads an array instead of calling charAt. */
        void reset(CharSequence input, List<Rule> into, SectionKind kind) {
            rules = into;
            section = kind;
            String s = input.toString();
            length = s.length();
            if (text.length < length) {
                text = new char[Math.max(length, text.length * 2)];
            }
            s.getChars(0, length, text, 0);
            count = 0;
            commas = 0;
            boundary = 0;
        }

        /** The modality a label clause of one or two words before a colon gives the next clause, or null. */
        private Modality ruleLabel() {
            if (count == 0 || count > 2 || types[count - 1] != WORD) {
                return null;
            }
            if (in(FORBIDDING_LABELS, count - 1) || (count == 2 && is(0, "do") && is(1, "not"))) {
                return Modality.FORBIDDEN;
            }
            return in(OBLIGING_LABELS, count - 1) ? Modality.OBLIGATORY : null;
        }

        /**
         * The words of the clause just scanned, which opens a sentence and ends at a colon, when it is a label of
         * words only ("Line length:", "**Run all checks**:"), else 0.
         */
        private int labelWords() {
            if (in(EXPLAINING_LABELS, 0)) {
                return 0;
            }
            for (int t = 0; t < count; t++) {
                if (types[t] != WORD) {
                    return 0;
                }
            }
            return count;
        }

        /** Whether the clause just scanned, opened after {@code openedAfter}, starts a sentence and ends at a colon. */
        private boolean opensSentenceBeforeColon(char openedAfter) {
            return boundary == ':' && count > 0 && (openedAfter == 0 || openedAfter == '.' || openedAfter == '!'
                    || openedAfter == '?' || openedAfter == '\n');
        }

        void run() {
            int pos = 0;
            labelled = null;
            char openedAfter = 0; // the boundary before the clause just scanned (0: the text's start)
            while (pos < length) {
                boolean afterCodeTerm = count > 0 && onlyCode && boundary == ':';
                Modality label = boundary == ':' ? ruleLabel() : null;
                boolean afterLabel = opensSentenceBeforeColon(openedAfter);
                int labelWordCount = afterLabel ? labelWords() : 0;
                openedAfter = count > 0 ? boundary : openedAfter;
                pos = nextClause(pos);
                labelled = label;
                labelValue = labelWordCount > 0 && labelWordCount <= VALUE_LABEL_WORDS;
                captionValue = labelWordCount > 0 && labelWordCount <= COMMAND_CAPTION_WORDS;
                valueOfLabel = afterLabel;
                definesCode = afterCodeTerm;
                onlyCode = count > 0;
                for (int t = 0; t < count && onlyCode; t++) {
                    onlyCode = types[t] == CODE;
                }
                int clauseRules = rules.size();
                if (hasHan) {
                    evaluateChinese();
                } else if (count > 0) {
                    evaluate();
                }
                previousClauseRules = clauseRules;
            }
        }

        // ---- clause scanning ------------------------------------------------------------------------

        private int nextClause(int from) {
            count = 0;
            commas = 0;
            parentheses = 0;
            hasHan = false;
            clauseStart = from;
            int i = from;
            while (i < length) {
                char c = text[i];
                if (c == '`') {
                    int close = codeSpanEnd(i);
                    if (close > 0) {
                        addToken(i, close, CODE);
                        i = close;
                        continue;
                    }
                    i++;
                    continue;
                }
                if (isWordChar(c)) {
                    int start = i;
                    i = wordEnd(i);
                    int name = fileNameEnd(start, i);
                    addToken(start, name, name > i ? CODE : WORD);
                    i = name;
                    continue;
                }
                if (c == '(') {
                    parentheses++;
                } else if (c == ')' && parentheses > 0) {
                    parentheses--;
                }
                if (isBoundary(c, i)) {
                    clauseEnd = i;
                    boundary = c;
                    return i + 1;
                }
                if (c == ',' && parentheses == 0 || c == '\u2014') {
                    addComma(); // a comma in "(page implementation, embed optimization)" lists; it ends no clause
                }
                i++;
            }
            clauseEnd = length;
            boundary = 0;
            return length;
        }

        /**
         * Where a file or dotted name that starts with the word {@code start}…{@code wordEnd} ends ("filter.rs",
         * "init.py", "Node.js"), or {@code wordEnd} if the word stands alone: a name is code, not a verb. A dot
         * after a one-letter word is an abbreviation's ("e.g.").
         */
        private int fileNameEnd(int start, int wordEnd) {
            int i = wordEnd;
            if (wordEnd - start < 2) {
                return wordEnd;
            }
            while (i + 1 < length && text[i] == '.' && Character.isLetter(text[i + 1])) {
                i = wordEnd(i + 1);
            }
            return i;
        }

        private int wordEnd(int i) {
            while (i < length) {
                char c = text[i];
                if (isWordChar(c)) {
                    if (!hasHan && c >= 0x2E80 && Character.isIdeographic(c)) {
                        hasHan = true;
                    }
                    i++;
                } else if ((c == '\'' || c == '\u2019' || c == '-') && i + 1 < length
                        && Character.isLetter(text[i + 1])) {
                    i++;
                } else {
                    break;
                }
            }
            return i;
        }

        /** End (exclusive) of the code span opened by the backtick run at {@code i}, or -1 if unclosed. */
        private int codeSpanEnd(int i) {
            int run = 0;
            while (i + run < length && text[i + run] == '`') {
                run++;
            }
            int j = i + run;
            while (j < length) {
                if (text[j] == '`') {
                    int k = 0;
                    while (j + k < length && text[j + k] == '`') {
                        k++;
                    }
                    if (k == run) {
                        return j + k;
                    }
                    j += k;
                } else {
                    j++;
                }
            }
            return -1;
        }

        private boolean isBoundary(char c, int i) {
            switch (c) {
                case '.', '!', '?' -> {
                    if (i + 1 < length) {
                        char next = text[i + 1];
                        if (!(isSpace(next) || next == '*' || next == '_' || next == ')'
                                || next == '"' || next == '\u201d' || next == '\'')) {
                            return false; // file.md, 1.5, a URL
                        }
                    }
                    // "e.g.", "i.e.", initials: a single letter before the dot is not a sentence end
                    return !(c == '.' && count > 0 && ends[count - 1] == i && types[count - 1] == WORD
                            && ends[count - 1] - starts[count - 1] == 1);
                }
                case ';', '|', '\u3002', '\uff01', '\uff1f', '\uff1b', '\uff1a', '\uff0c' -> {
                    return true;
                }
                case ':' -> {
                    // "Label: …", and "**Label:** …" whose emphasis closes after the colon
                    int next = i + 1;
                    while (next < length && (text[next] == '*' || text[next] == '_')) {
                        next++;
                    }
                    return next >= length || isSpace(text[next]);
                }
                case '\n' -> {
                    return lineStartsBlock(i + 1);
                }
                default -> {
                    return false;
                }
            }
        }

        /** A new line that opens a list item, quote, heading, table row, or a blank line ends the clause. */
        private boolean lineStartsBlock(int i) {
            while (i < length && (text[i] == ' ' || text[i] == '\t')) {
                i++;
            }
            if (i >= length) {
                return true;
            }
            char c = text[i];
            if (c == '\n' || c == '\r' || c == '>' || c == '#' || c == '|') {
                return true;
            }
            if ((c == '-' || c == '*' || c == '+') && i + 1 < length && text[i + 1] == ' ') {
                return true;
            }
            int j = i;
            while (j < length && Character.isDigit(text[j])) {
                j++;
            }
            return j > i && j + 1 < length && (text[j] == '.' || text[j] == ')')
                    && text[j + 1] == ' ';
        }

        private void addComma() {
            if (commas == commaTokens.length) {
                commaTokens = java.util.Arrays.copyOf(commaTokens, commas * 2);
            }
            commaTokens[commas++] = count;
        }

        private void addToken(int start, int end, int type) {
            if (count == starts.length) {
                starts = java.util.Arrays.copyOf(starts, count * 2);
                ends = java.util.Arrays.copyOf(ends, count * 2);
                types = java.util.Arrays.copyOf(types, count * 2);
                hashes = java.util.Arrays.copyOf(hashes, count * 2);
            }
            hashes[count] = 0;
            starts[count] = start;
            ends[count] = end;
            types[count] = (byte) type;
            count++;
        }

        // ---- English ------------------------------------------------------------------------------------

        private void evaluate() {
            if (definesCode && !refersBack()) {
                return;
            }
            if (section == SectionKind.COMMANDS && captionValue && types[0] == CODE) {
                // "**Run all checks**: `pre-commit run --all-files`" under "Development Commands" names a command
                rules.subList(previousClauseRules, rules.size()).clear();
                return;
            }
            if (valueOfLabel && describes(skipFillers(0))) {
                // "**Continue SDK Integration** (`src/continueSDK.ts`): Initializes the client with:" names a component
                for (int r = rules.size() - 1; r >= previousClauseRules; r--) {
                    if (rules.get(r).trigger().equals("imperative")) {
                        rules.remove(r);
                    }
                }
            }
            int before = rules.size();
            if (!quoted()) {
                evaluateClause();
            }
            for (int r = before; r < rules.size(); r++) {
                Rule rule = rules.get(r);
                if (rule.modality() != Modality.OBLIGATORY || !rule.trigger().equals("imperative")) {
                    continue;
                }
                if (section == SectionKind.PROHIBITIONS) {
                    // "## Never" … "- Edit generated files": the instruction names what not to do
                    rules.set(r, new Rule(Modality.FORBIDDEN, rule.action(), "prohibition heading"));
                } else if (hasWord("freely")) {
                    // "Read, edit, and update it freely in main sessions" allows
                    rules.set(r, new Rule(Modality.PERMITTED, rule.action(), "imperative freely"));
                }
            }
            if (labelled != null) {
                if (rules.size() == before) {
                    add(labelled, 0, "label");
                } else if (labelled == Modality.FORBIDDEN) {
                    // "Never: edit generated files" forbids what the clause after the label names
                    Rule first = rules.get(before);
                    rules.set(before, new Rule(Modality.FORBIDDEN, first.action(), "label"));
                }
            }
        }

        /** Whether the code span {@code token} holds a command: a lower-case word, then a space ("uv add …", "make test"). */
        private boolean command(int token) {
            int p = starts[token];
            while (p < ends[token] && text[p] == '`') {
                p++;
            }
            int word = p;
            while (p < ends[token] && (Character.isLowerCase(text[p]) || Character.isDigit(text[p]) || text[p] == '-'
                    || text[p] == '.' || text[p] == '_' || text[p] == '/')) {
                p++;
            }
            return p > word && p < ends[token] && text[p] == ' ';
        }

        /** "Pre-commit hook: Runs `pnpm install` if …": a label's value that says what the labelled thing does. */
        private boolean describes(int i) {
            return thirdPerson(i) && i + 1 < count && (types[i + 1] == CODE || in(IMPERATIVE_FOLLOWERS, i + 1));
        }

        /** A clause that opens with a quotation mark mentions its words ("Abandoned: "Add zizmor …""), not says them. */
        private boolean quoted() {
            int p = clauseStart;
            while (p < clauseEnd && (isSpace(text[p]) || text[p] == '*' || text[p] == '_')) {
                p++;
            }
            return p < clauseEnd && (text[p] == '"' || text[p] == '\u201c');
        }

        /**
         * "**`adk-git`**: Use this skill for any git operation" instructs: an imperative whose object points back
         * at the code term; "`make lint`: run the linters" defines the command.
         */
        private boolean refersBack() {
            int w = skipFillers(0);
            return verb(w) && in(BACK_REFERENCES, w + 1);
        }

        private void evaluateClause() {
            int clauseRules = rules.size();
            int i = skipFillers(0);
            if ((is(i, "no") || is(i, "yes")) && isCommaAfter(i)) {
                i = skipFillers(i + 1); // "No, I won't …": the answer word is not the rule
            }
            if (i >= count) {
                return;
            }
            if (in(SUBORDINATORS, i)) {
                // The leading adverbial clause is a condition, not an instruction: the main clause starts
                // after one of its commas ("If X, Y, or Z, rebuild …").
                for (int c = 0; c < commas && rules.size() == clauseRules; c++) {
                    if (commaTokens[c] > i && commaTokens[c] < count) {
                        i = skipFillers(commaTokens[c]);
                        matchClauseStart(i);
                        if (rules.size() == clauseRules) {
                            matchAnySubject(i);
                        }
                    }
                }
                if (rules.size() == clauseRules) {
                    matchMainYou(i);
                }
                if (rules.size() == clauseRules) {
                    matchPlease(i);
                }
                return;
            } else {
                matchClauseStart(i);
            }
            boolean youFirst = isYou(i);
            for (int k = youFirst ? i + 1 : i; k < count; k++) {
                if (isYou(k)) {
                    matchYou(k, false);
                }
            }
            // the broader readings, only for a clause nothing above found a rule in
            if (rules.size() == clauseRules) {
                matchAnySubject(i);
            }
            if (rules.size() == clauseRules) {
                matchContinuation(i, clauseRules);
            }
            if (rules.size() == clauseRules) {
                matchRouting(i);
            }
            if (rules.size() == clauseRules) {
                matchParenthetical(i);
            }
            if (rules.size() == clauseRules) {
                matchPlease(i);
            }
            if (rules.size() == clauseRules && (section == SectionKind.RULES || section == SectionKind.PROHIBITIONS)) {
                matchConvention(i);
            }
        }

        /**
         * A leading clause with no comma to end it: the main clause starts at the "you" after it. After "To …"
         * (which has no subject) that is the first "you" ("To get started you need to install …"); after "If",
         * "When" … the first "you" is the condition's ("If you need to understand X, …"), so the second.
         */
        private void matchMainYou(int subordinator) {
            int seen = 0;
            int wanted = is(subordinator, "to") ? 1 : 2;
            for (int k = subordinator + 1; k < count; k++) {
                if (isYou(k) && ++seen == wanted) {
                    matchYou(k, false);
                    return;
                }
            }
        }

        /** "… please mention they can add …": "please" before a verb asks for it wherever it stands. */
        private void matchPlease(int i) {
            for (int t = i + 1; t + 1 < count; t++) {
                if (is(t, "please") && verb(t + 1)
                        && !(is(t + 1, "note") && is(t + 2, "that"))) {
                    add(Modality.OBLIGATORY, t + 1, "please");
                    return;
                }
            }
        }

        /** "**Lock file**: `uv.lock` (commit this file)": an instruction in parentheses ("(see …)" only refers). */
        private void matchParenthetical(int i) {
            for (int t = i + 1; t + 1 < count; t++) {
                if (markBefore(t, '(') && in(IMPERATIVE_VERBS, t) && !is(t, "see")) {
                    add(Modality.OBLIGATORY, t, "parenthetical");
                    return;
                }
            }
        }

        /**
         * Under a rule heading, a convention in the present tense: a label's value ("Line length: 120 chars
         * maximum", not a command: "Installation: `uv add`", nor a statement: "IMPORTANT: The file is …"), or a
         * kind of thing and what it does ("Errors use `anyhow::Result`", "New features require tests").
         */
        private void matchConvention(int i) {
            if (labelValue) {
                // a convention's value is terse, a long one defines its label ("Editorial: Terminology, spelling, …");
                // a label already read as an instruction ("Run the checks: …") is not read twice
                boolean labelRead = rules.size() > previousClauseRules;
                // a value that ends in a colon introduces what follows ("Circular import chains detected: …")
                // code is a convention's value ("Labels: `fix`, `feat`"), unless it is a command ("Installation: `uv add`")
                if (!labelRead && !(onlyCode && command(0)) && !describes(i) && boundary != ':'
                        && count - i <= CONVENTION_VALUE_WORDS
                        && !in(NOT_CONVENTION_SUBJECTS, i) && !in(COPULAS, i + 1) && !in(COPULAS, i + 2)) {
                    add(Modality.OBLIGATORY, i, "convention");
                }
                return;
            }
            if (in(NOT_CONVENTION_SUBJECTS, i)) {
                return;
            }
            for (int k = i + 1; k < count && k <= i + 3; k++) {
                if (types[k - 1] != WORD) {
                    return;
                }
                if (in(RELATIVE_PRONOUNS, k)) {
                    return; // "Tests that use the workflow environment may start …": the verb is the relative clause's
                }
                if (in(CONVENTION_VERBS, k) && k + 1 < count) {
                    add(Modality.OBLIGATORY, i, "convention");
                    return;
                }
                if (markBefore(k, '(')) {
                    return; // "Hub files (most depended on)": an aside, not the convention's verb
                }
                if (participle(k) && in(PARTICIPLE_LINKS, k + 1) && count - i <= PARTICIPLE_CONVENTION_TOKENS
                        && !in(PEOPLE, k - 1) && !hasCopulaOrModal(i)) {
                    // "Slow tests gated with `@slow`": a convention stated without its "are" (a longer clause
                    // goes on to its own verb: "Reviewers dispatched by X inherit …")
                    add(Modality.OBLIGATORY, i, "convention");
                    return;
                }
            }
        }

        /** A verb of the closed list, or a word that can be a base-form verb ({@link #baseFormVerb}). */
        private boolean verb(int w) {
            return in(IMPERATIVE_VERBS, w) || baseFormVerb(w);
        }

        /** A past participle of a WordNet verb: "gated" (gate), "guarded" (guard), "pinned" (pin). */
        private boolean participle(int k) {
            int start = starts[k];
            int end = ends[k];
            if (end - start < 5 || !endsWith(start, end, "ed") || !Character.isLowerCase(text[start])) {
                return false;
            }
            return WORDNET_VERBS.contains(text, start, end - 2) || WORDNET_VERBS.contains(text, start, end - 1)
                    || text[end - 3] == text[end - 4] && WORDNET_VERBS.contains(text, start, end - 3);
        }

        /**
         * Whether a copula, a modal or another noun signal ({@link #NOUN_SIGNALS} but "of" and "'s") follows
         * {@code from}: then a participle is not the clause's only verb.
         */
        private boolean hasCopulaOrModal(int from) {
            for (int t = from; t < count; t++) {
                if (in(NOUN_SIGNALS, t) && !is(t, "of") && !is(t, "'s")) {
                    return true;
                }
            }
            return false;
        }

        /**
         * "Max 2 revision rounds, then escalate to Neo", "Small improvements are encouraged, but avoid large
         * refactors", "… in the delegation message — follow the workflow".
         */
        private void matchContinuation(int i, int clauseRules) {
            for (int c = 0; c < commas && rules.size() == clauseRules; c++) {
                int t = commaTokens[c];
                if (t <= i || t >= count) {
                    continue;
                }
                if (is(t, "then") || is(t, "but")) {
                    matchClauseStart(t + 1);
                } else if (markBefore(t, '\u2014')) {
                    matchClauseStart(t);
                }
            }
        }

        /** Whether {@code mark} stands between the token before {@code token} and it. */
        private boolean markBefore(int token, char mark) {
            for (int p = ends[token - 1]; p < starts[token]; p++) {
                if (text[p] == mark) {
                    return true;
                }
            }
            return false;
        }

        /**
         * An escalation line of a persona: "Anomalies suggesting fraud or security issues → Seraph" routes what
         * it names to the agent or person after the arrow (a capitalized name, not code: "A → B" between code
         * spans is a flow).
         */
        private void matchRouting(int i) {
            if (count - i < 4) {
                return;
            }
            for (int t = i + 3; t < count; t++) {
                if ((capitalized(t) || in(IMPERATIVE_VERBS, t)) && markBefore(t, '\u2192')) {
                    add(Modality.OBLIGATORY, i, "route");
                    return;
                }
            }
        }

        /**
         * A modal with a subject other than "you" binds the agent's work ("Every PR must include a benchmark",
         * "Functions must be focused and small"), unless the subject is people ("Reviewers must approve"); so do
         * "X required" and "it is crucial to …".
         */
        private void matchAnySubject(int i) {
            if ((is(i, "it") && is(i + 1, "is")) || in(IT_IS, i)) {
                int m = is(i, "it") ? i + 2 : i + 1;
                while (in(ADVERBS, m) || in(INTENSIFIERS, m)) {
                    m++;
                }
                if (in(NECESSARY, m) && (is(m + 1, "to") || is(m + 1, "that"))) {
                    add(Modality.OBLIGATORY, m + 2, "it is " + lower(m) + " " + lower(m + 1));
                }
                return;
            }
            for (int k = i + 1; k < count && k <= i + 8; k++) {
                if (types[k] != WORD) {
                    continue;
                }
                if (k - 2 > i && in(EMBEDDING_WORDS, k - 2)) {
                    continue; // "The data just appears where it should": the modal belongs to an embedded clause
                }
                if (in(OBLIGATION_MODALS, k) || in(NEGATED_OBLIGATION_MODALS, k)
                        || (is(k, "required") || is(k, "mandatory")) && Character.isLowerCase(text[starts[k]])) {
                    if (in(PEOPLE, i) || in(PEOPLE, k - 1)) {
                        return;
                    }
                    boolean negated = in(NEGATED_OBLIGATION_MODALS, k) || in(NEGATIONS, k + 1);
                    int action = negated && !in(NEGATED_OBLIGATION_MODALS, k) ? k + 2 : k + 1;
                    if (k + 1 == count && !in(OBLIGATION_MODALS, k)) {
                        action = i; // "… but consistency is mandatory": with nothing after it, the subject is required
                    }
                    add(negated ? Modality.FORBIDDEN : Modality.OBLIGATORY, action, lower(k));
                    return;
                }
                if ((is(k, "never") || is(k, "always")) && upperCase(k) && !in(PEOPLE, i)) {
                    // "Server code NEVER imports client code": capitals are how a writer insists, not describes
                    add(is(k, "never") ? Modality.FORBIDDEN : Modality.OBLIGATORY, k + 1, lower(k));
                    return;
                }
                int a = is(k + 1, "not") ? k + 2 : k + 1;
                int after = is(a + 1, "only") ? a + 2 : a + 1; // "… are acceptable only when bundled with …"
                if (in(COPULAS, k) && in(ACCEPTABLE, a) && (after == count || in(SUBORDINATORS, after) || is(after, "here"))
                        && !in(PEOPLE, i) && !in(NOT_CONVENTION_SUBJECTS, i)) {
                    // "Relative imports are acceptable for private packages", "Deferred imports are not allowed"
                    add(a == k + 2 || is(k, "isn't") || is(k, "aren't") ? Modality.FORBIDDEN : Modality.PERMITTED,
                            i, lower(k) + " " + lower(a));
                    return;
                }
            }
        }

        private boolean hasWord(String word) {
            for (int t = 0; t < count; t++) {
                if (is(t, word)) {
                    return true;
                }
            }
            return false;
        }

        /** Whether the word is written in capitals (at least two letters): "NEVER", "ALWAYS". */
        private boolean upperCase(int token) {
            int letters = 0;
            for (int p = starts[token]; p < ends[token]; p++) {
                char c = text[p];
                if (Character.isLowerCase(c)) {
                    return false;
                }
                letters += Character.isUpperCase(c) ? 1 : 0;
            }
            return letters >= 2;
        }

        private int skipFillers(int i) {
            int skipped = 0;
            while (i < count && skipped < 3 && in(FILLERS, i)) {
                i++;
                skipped++;
            }
            return i;
        }

        private void matchClauseStart(int w) {
            if (isYou(w)) {
                matchYou(w, true);
            } else if (is(w, "always") && !thirdPerson(w + 1)) {
                add(Modality.OBLIGATORY, w + 1, "always");
            } else if (is(w, "never") && !thirdPerson(w + 1)) {
                add(Modality.FORBIDDEN, w + 1, "never");
            } else if (is(w, "do") && is(w + 1, "not")) {
                add(Modality.FORBIDDEN, w + 2, "do not");
            } else if (in(DONT, w)) {
                add(Modality.FORBIDDEN, w + 1, "don't");
            } else if (is(w, "avoid")) {
                add(Modality.FORBIDDEN, w + 1, "avoid");
            } else if (is(w, "make") && in(SURE, w + 1)) {
                // "Make sure to never force push", "Make sure you don't …" forbid
                int negation = -1;
                for (int t = w + 2; t < count && t <= w + 4 && negation < 0; t++) {
                    negation = in(NEGATIONS, t) || in(DONT, t) ? t : -1;
                }
                if (negation < 0) {
                    add(Modality.OBLIGATORY, w + 2, "make sure");
                } else {
                    add(Modality.FORBIDDEN, negation + 1, "make sure not");
                }
            } else if (is(w, "prefer")) {
                add(Modality.OBLIGATORY, w + 1, "prefer");
            } else if (is(w, "act") && is(w + 1, "as")) {
                add(Modality.OBLIGATORY, w, "act as");
            } else if (is(w, "your") && (in(ROLE_NOUNS, w + 1) || in(ROLE_NOUNS, w + 2))) {
                add(Modality.OBLIGATORY, w, "your role");
            } else if (is(w, "feel") && is(w + 1, "free") && is(w + 2, "to")) {
                add(Modality.PERMITTED, w + 3, "feel free to");
            } else if (is(w, "the") && in(ROLE_NOUNS, w + 1) && is(w + 2, "is") && is(w + 3, "to")) {
                add(Modality.OBLIGATORY, w + 4, "the " + lower(w + 1) + " is to"); // "The goal is to have tests that …"
            } else if (is(w, "time") && is(w + 1, "to") && w + 2 < count) {
                add(Modality.OBLIGATORY, w + 2, "time to"); // "Time to figure out who you are"
            } else if (is(w, "remember") && is(w + 1, "to")) {
                add(Modality.OBLIGATORY, w + 2, "remember to");
            } else if (is(w, "be") && w + 1 < count) {
                add(Modality.OBLIGATORY, w, "imperative");
            } else if (is(w, "do") && in(IMPERATIVE_FOLLOWERS, w + 1) && !in(SUBORDINATORS, w + 1) && boundary != '?') {
                add(Modality.OBLIGATORY, w, "imperative"); // "…, do a brief check for …"; "Do the tests pass?" asks
            } else if (in(IMPERATIVE_VERBS, w) && (w + 1 < count || objectAfterColon(w)) && !in(NOUN_SIGNALS, w + 1)
                    && !(is(w, "have") && (isYou(w + 1) || is(w + 1, "we") || is(w + 1, "they"))) // a question
                    // "Edit any of these" instructs; "Build artifacts are …", "Use of …" name things
                    && (!in(NOUN_SIGNALS, w + 2) || is(w + 2, "of") && in(QUANTIFIERS, w + 1) || in(CLAUSE_VERBS, w))
                    && !(is(w, "note") && is(w + 1, "that")) && !namesActivity(w)) {
                add(Modality.OBLIGATORY, w, "imperative");
            } else if (hyphenatedVerb(w) && w + 1 < count && !in(NOUN_SIGNALS, w + 1)) {
                add(Modality.OBLIGATORY, w, "imperative"); // "Auto-detect the environment", "Hand-edit the config"
            } else if (is(w, "i")) {
                matchFirstPerson(w + 1);
            } else if (is(w, "i'll")) {
                matchFirstPerson(w);
            } else if (is(w, "no") && terse(w, TERSE_WORDS)) {
                add(Modality.FORBIDDEN, w + 1, "no");
            } else if (terse(w, 4) && (is(w + 1, "over") || is(w + 2, "over") || is(w + 1, "before"))) {
                add(Modality.OBLIGATORY, w, "over");
            } else if (is(w, "only") && w + 1 < count) {
                matchClauseStart(w + 1); // "ONLY use uv"
            } else if (baseFormVerb(w) && objectFollows(lyAdverb(w + 1) ? w + 2 : w + 1)) {
                add(Modality.OBLIGATORY, w, "imperative");
            }
        }

        /**
         * "If you have to rebuild all, run: `pnpm run build`": a verb that ends a main clause at a colon takes what
         * follows as its object (a clause's first word before a colon is a label: "Install: `uv sync`").
         */
        private boolean objectAfterColon(int w) {
            return w > 0 && w + 1 == count && boundary == ':';
        }

        /**
         * Whether what starts at {@code o} is what a base-form verb's object or preposition starts with: "Spawn a
         * coding agent", "Switch to the …", "test locally with `node dist/index.js`" (after an adverb), where
         * "Failure to do …" names (a noun takes an infinitive).
         */
        private boolean objectFollows(int o) {
            return (in(IMPERATIVE_FOLLOWERS, o) || o < count && types[o] == CODE) && !in(NOUN_SIGNALS, o + 1)
                    && !(is(o, "to") && !(in(IMPERATIVE_FOLLOWERS, o + 1) || o + 1 < count && types[o + 1] == CODE));
        }

        /** An adverb in -ly of at least five letters: "locally", "directly", "carefully". */
        private boolean lyAdverb(int t) {
            return t < count && types[t] == WORD && ends[t] - starts[t] >= 5 && endsWith(starts[t], ends[t], "ly")
                    && Character.isLowerCase(text[starts[t]]);
        }

        /** "**Import sorting:** isort": a verb and a gerund as a label name an activity, not an instruction. */
        private boolean namesActivity(int w) {
            return w + 2 == count && boundary == ':' && types[w + 1] == WORD && endsWith(starts[w + 1], ends[w + 1], "ing");
        }

        /** A hyphenated word whose last part is a verb of the closed list: "Auto-detect", "Hand-edit". */
        private boolean hyphenatedVerb(int w) {
            if (w >= count || types[w] != WORD) {
                return false;
            }
            for (int p = ends[w] - 2; p > starts[w]; p--) {
                if (text[p] == '-') {
                    // "Pre-commit hooks", "Post-build steps", "Non-blocking I/O" name things
                    return !NOUN_PREFIXES.contains(WordSet.hash(text, starts[w], p), text, starts[w], p)
                            && IMPERATIVE_VERBS.contains(WordSet.hash(text, p + 1, ends[w]), text, p + 1, ends[w]);
                }
            }
            return false;
        }

        /** "… — never runs user code —": a verb in the third person describes its subject; "Never run …" instructs. */
        private boolean thirdPerson(int w) {
            if (w >= count || types[w] != WORD || ends[w] - starts[w] < 4 || !endsWith(starts[w], ends[w], "s")) {
                return false;
            }
            return !endsWith(starts[w], ends[w], "ss") && !endsWith(starts[w], ends[w], "us")
                    && !endsWith(starts[w], ends[w], "is");
        }

        private boolean isCommaAfter(int token) {
            for (int c = 0; c < commas; c++) {
                if (commaTokens[c] == token + 1) {
                    return true;
                }
            }
            return false;
        }

        /** The clause from {@code w} is a whole sentence of at most {@code words} words: a terse norm can be one. */
        private boolean terse(int w, int words) {
            if (count - w > words || count - w < 2
                    || (boundary != '.' && boundary != '!' && boundary != ':' && boundary != 0)) {
                return false;
            }
            for (int t = w; t < count; t++) {
                if (types[t] != WORD) {
                    return false;
                }
            }
            return !isCommaAfter(w); // "No, I won't …" answers, it does not forbid
        }

        /**
         * Whether the word at {@code w} can be a base-form verb the closed list does not know ("Spawn", "Celebrate",
         * "Ground"): a lower-case word, or capitalized only at its first letter, of at least three letters, that
         * is no function word and is a verb of WordNet's or of software work's ("Python", "Monorepo" are not).
         */
        private boolean baseFormVerb(int w) {
            if (w >= count || types[w] != WORD || in(NOT_VERBS, w)) {
                return false;
            }
            int start = starts[w];
            int end = ends[w];
            if (end - start < 3) {
                return false;
            }
            for (int i = start; i < end; i++) {
                char c = text[i];
                if (!(c >= 'a' && c <= 'z') && !(i == start && c >= 'A' && c <= 'Z')) {
                    return false;
                }
            }
            return WORDNET_VERBS.contains(text, start, end) || SOFTWARE_VERBS.contains(text, start, end);
        }

        private boolean endsWith(int start, int end, String ending) {
            int n = ending.length();
            if (end - start <= n) {
                return false;
            }
            for (int i = 0; i < n; i++) {
                if (WordSet.fold(text[end - n + i]) != ending.charAt(i)) {
                    return false;
                }
            }
            return true;
        }

        /** "I am C-3PO, …", "I will tell you", "I won't …": a persona's commitments in the first person. */
        private void matchFirstPerson(int m) {
            if (is(m, "am") && (in(IDENTITY_OPENERS, m + 1) || capitalized(m + 1))) {
                addIdentity(Modality.OBLIGATORY, m + 1, "i am");
            } else if (is(m, "will") || is(m, "i'll")) {
                add(is(m + 1, "never") || is(m + 1, "not") ? Modality.FORBIDDEN : Modality.OBLIGATORY, m + 1, "i will");
            } else if (is(m, "won't") || is(m, "wont")) {
                add(Modality.FORBIDDEN, m + 1, "i won't");
            }
        }

        private boolean capitalized(int token) {
            return token < count && types[token] == WORD && Character.isUpperCase(text[starts[token]])
                    && !is(token, "i");
        }

        private void matchYou(int k, boolean clauseInitial) {
            if (in(YOU_ARE, k)) {
                matchAre(k + 1, clauseInitial, false);
                return;
            }
            int m = k + 1;
            while (m < count && in(ADVERBS, m)) {
                m++;
            }
            if (m >= count || types[m] != WORD) {
                return;
            }
            if (is(m, "never")) {
                add(Modality.FORBIDDEN, m + 1, "you never");
            } else if (in(OBLIGATION_MODALS, m)) {
                if (in(NEGATIONS, m + 1)) {
                    add(Modality.FORBIDDEN, m + 2, "you " + lower(m) + " not");
                } else if (m + 1 == count && boundary == ':') {
                    // "If asked to open a PR, you MUST:" leads into the list of what: the lead-in is the action
                    rules.add(new Rule(Modality.OBLIGATORY, cleanAction(starts[0], clauseEnd), "you " + lower(m)));
                } else {
                    add(Modality.OBLIGATORY, m + 1, "you " + lower(m));
                }
            } else if (in(NEGATED_OBLIGATION_MODALS, m)) {
                add(Modality.FORBIDDEN, m + 1, "you " + lower(m));
            } else if (is(m, "ought") && is(m + 1, "to")) {
                add(Modality.OBLIGATORY, m + 2, "you ought to");
            } else if (in(HAVE_NEED, m) && is(m + 1, "to")) {
                add(Modality.OBLIGATORY, m + 2, "you " + lower(m) + " to");
            } else if (is(m, "are")) {
                matchAre(m + 1, clauseInitial, false);
            } else if (in(ARE_NOT, m)) {
                matchAre(m + 1, clauseInitial, true);
            } else if (is(m, "may") || is(m, "can")) {
                if (is(m + 1, "not")) {
                    add(Modality.FORBIDDEN, m + 2, "you " + lower(m) + " not");
                } else if (clauseInitial) {
                    add(Modality.PERMITTED, m + 1, "you " + lower(m));
                }
            } else if (in(CANNOT, m)) {
                add(Modality.FORBIDDEN, m + 1, "you cannot");
            } else if (clauseInitial && in(WORKING_VERBS, m)) {
                add(Modality.OBLIGATORY, m, "you " + lower(m));
            } else if (is(m, "will") && is(m + 1, "never")) {
                add(Modality.FORBIDDEN, m + 2, "you will never");
            } else if (is(m, "will") && is(m + 1, "always")) {
                add(Modality.OBLIGATORY, m + 2, "you will always");
            } else if (is(m, "will") && clauseInitial && m + 1 < count) {
                add(Modality.OBLIGATORY, m + 1, "you will");
            } else if (is(m, "do") && is(m + 1, "not")) {
                matchDont(m + 2);
            } else if (in(DONT, m)) {
                matchDont(m + 1);
            }
        }

        private void matchDont(int m) {
            if (is(m, "just") || is(m, "only") || is(m, "merely")) {
                return; // "You don't just report what happened; you explain why" contrasts, it does not forbid
            }
            if (in(HAVE_NEED, m) && is(m + 1, "to")) {
                add(Modality.PERMITTED, m + 2, "you don't need to");
            } else if (in(HAVE_NEED, m)) {
                return; // "You don't need encouragement — you need instructions" states a need
            } else {
                add(Modality.FORBIDDEN, m, "you do not");
            }
        }

        private void matchAre(int m, boolean clauseInitial, boolean negated) {
            if (is(m, "not")) {
                negated = true;
                m++;
            }
            while (m < count && in(ADVERBS, m)) {
                m++;
            }
            if (is(m, "never")) {
                add(Modality.FORBIDDEN, m + 1, "you are never");
            } else if (in(OBLIGED, m) && is(m + 1, "to")) {
                add(negated ? Modality.PERMITTED : Modality.OBLIGATORY, m + 2, "you are " + lower(m) + " to");
            } else if (in(ALLOWED, m) && is(m + 1, "to")) {
                add(negated ? Modality.FORBIDDEN : Modality.PERMITTED, m + 2, "you are " + lower(m) + " to");
            } else if (in(BANNED, m)) {
                int a = m + 1;
                if (is(a, "to") || is(a, "from")) {
                    a++;
                }
                add(Modality.FORBIDDEN, a, "you are " + lower(m));
            } else if (clauseInitial && (in(IDENTITY_OPENERS, m) || capitalized(m))) {
                addIdentity(negated ? Modality.FORBIDDEN : Modality.OBLIGATORY, m, negated ? "you are not" : "you are");
            }
        }

        // ---- Chinese ------------------------------------------------------------------------------------

        private void evaluateChinese() {
            int p = clauseStart;
            while (p < clauseEnd && !Character.isLetterOrDigit(text[p])) {
                p++;
            }
            if (startsWith(p, "请")) {
                p++;
            }
            int opener = matchAny(p, CJK_FORBIDDEN_OPENERS);
            if (opener > 0) {
                addRaw(Modality.FORBIDDEN, p + opener, p);
            } else if (startsWith(p, "不") && matchAny(p + 1, CJK_NOT_A_RULE_AFTER_NOT) == 0) {
                addRaw(Modality.FORBIDDEN, p + 1, p);
            } else if ((opener = matchAny(p, CJK_OBLIGATORY_OPENERS)) > 0) {
                addRaw(Modality.OBLIGATORY, p + opener, p);
            }
            for (int q = p; q < clauseEnd; q++) {
                if (text[q] != '你') {
                    continue;
                }
                boolean initial = q == p;
                int r = q + 1;
                int adverb;
                while ((adverb = matchAny(r, CJK_ADVERBS)) > 0) {
                    r += adverb;
                }
                int len;
                if (initial && startsWith(r, "不是")) {
                    addChineseIdentity(Modality.FORBIDDEN, r + 1, "你不是");
                } else if (initial && startsWith(r, "是")) {
                    addChineseIdentity(Modality.OBLIGATORY, r, "你是");
                } else if ((len = matchAny(r, CJK_FORBIDDEN_MODALS)) > 0) {
                    addRaw(Modality.FORBIDDEN, r + len, r);
                } else if ((len = matchAny(r, CJK_OBLIGATORY_MODALS)) > 0) {
                    addRaw(Modality.OBLIGATORY, r + len, r);
                } else if (initial && (len = matchAny(r, CJK_PERMITTED_MODALS)) > 0) {
                    addRaw(Modality.PERMITTED, r + len, r);
                }
            }
        }

        private boolean startsWith(int at, String prefix) {
            if (at + prefix.length() > clauseEnd) {
                return false;
            }
            for (int i = 0; i < prefix.length(); i++) {
                if (text[at + i] != prefix.charAt(i)) {
                    return false;
                }
            }
            return true;
        }

        /** Length of the first of {@code candidates} (longest first) found at {@code at}, or 0. */
        private int matchAny(int at, String[] candidates) {
            for (String candidate : candidates) {
                if (startsWith(at, candidate)) {
                    return candidate.length();
                }
            }
            return 0;
        }

        private void addRaw(Modality modality, int actionStart, int triggerStart) {
            String action = cleanAction(actionStart, clauseEnd);
            if (!action.isEmpty()) {
                String trigger = new String(text, triggerStart, actionStart - triggerStart);
                rules.add(new Rule(modality, action, trigger));
            }
        }

        private void addChineseIdentity(Modality modality, int actionStart, String trigger) {
            String action = cleanAction(actionStart, clauseEnd);
            if (action.length() > 1) {
                rules.add(new Rule(modality, action, trigger));
            }
        }

        // ---- results ------------------------------------------------------------------------------------

        private void add(Modality modality, int actionToken, String trigger) {
            if (actionToken >= count) {
                return; // "Never." alone names no action
            }
            String action = cleanAction(starts[actionToken], clauseEnd);
            if (!action.isEmpty()) {
                rules.add(new Rule(modality, action, trigger));
            }
        }

        private void addIdentity(Modality modality, int fromToken, String trigger) {
            if (fromToken + 1 >= count) {
                return;
            }
            rules.add(new Rule(modality, "be " + cleanAction(starts[fromToken], clauseEnd), trigger));
        }

        /** The action phrase as written: markup and surrounding punctuation removed, whitespace collapsed. */
        private String cleanAction(int from, int to) {
            if (actionBuffer == null) {
                actionBuffer = new char[MAX_ACTION_CHARS];
            }
            char[] out = actionBuffer;
            int n = 0;
            boolean space = false;
            for (int i = from; i < to && n < MAX_ACTION_CHARS; i++) {
                char c = text[i];
                if (c > ' ' && c < 128) {
                    if (c == '*' || c == '`' || (c == '_' && !innerUnderscore(i, from, to))) {
                        continue; // emphasis and code markup
                    }
                } else if (isSpace(c)) {
                    space = n > 0;
                    continue;
                } else if (WordSet.ignorable(c)) {
                    continue;
                }
                if (space) {
                    out[n++] = ' ';
                    space = false;
                    if (n == MAX_ACTION_CHARS) {
                        break;
                    }
                }
                out[n++] = c;
            }
            while (n > 0 && TRAILING_PUNCTUATION.indexOf(out[n - 1]) >= 0) {
                n--;
            }
            return new String(out, 0, n);
        }

        /** An underscore inside a word (snake_case) is text; one at a word edge is emphasis. */
        private boolean innerUnderscore(int i, int from, int to) {
            return i > from && i + 1 < to && Character.isLetterOrDigit(text[i - 1]) && Character.isLetterOrDigit(text[i + 1]);
        }

        private static boolean isSpace(char c) {
            return c <= ' ' ? c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' : c >= 0x80 && Character.isWhitespace(c);
        }

        // ---- token tests --------------------------------------------------------------------------------

        private boolean is(int token, String word) {
            if (token >= count || types[token] != WORD || ends[token] - starts[token] < word.length()) {
                return false;
            }
            char first = text[starts[token]];
            // fast reject on the first letter; a leading invisible character takes the full comparison
            if (first < 128 && WordSet.fold(first) != word.charAt(0)) {
                return false;
            }
            return WordSet.equalsWord(text, starts[token], ends[token], word);
        }

        private boolean in(WordSet set, int token) {
            if (token >= count || types[token] != WORD) {
                return false;
            }
            int h = hashes[token];
            if (h == 0) {
                h = WordSet.hash(text, starts[token], ends[token]);
                hashes[token] = h;
            }
            return set.contains(h, text, starts[token], ends[token]);
        }

        private boolean isYou(int token) {
            // called for every token of a clause: reject on the first letter before any hashing
            if (token >= count || types[token] != WORD || WordSet.fold(text[starts[token]]) != 'y') {
                return token < count && types[token] == WORD && WordSet.ignorable(text[starts[token]])
                        && (is(token, "you") || in(YOU_ARE, token));
            }
            return is(token, "you") || in(YOU_ARE, token);
        }

        private String lower(int token) {
            StringBuilder b = new StringBuilder(ends[token] - starts[token]);
            for (int i = starts[token]; i < ends[token]; i++) {
                char c = text[i];
                if (!WordSet.ignorable(c)) {
                    b.append(WordSet.fold(c));
                }
            }
            return b.toString();
        }
    }
}
