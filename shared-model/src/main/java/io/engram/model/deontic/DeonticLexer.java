package io.engram.model.deontic;

import io.engram.model.deontic.Candidates.Withdrawal;
import java.util.List;

/**
 * Finds rules addressed to the agent in a text (docs/algorithms.md, "Deontic lexer"). A pipeline:
 * <ol>
 * <li>the tokenizer ({@link ClauseScanner}) splits the text into clauses, each a read-only {@link Clause} of words
 * and code spans that knows the headings above it ({@link SectionKind}) and what the clause before it makes of it
 * ({@link Context}: a label, a code term);
 * <li>the readings add each clause's candidate rules ({@link ClauseRules}), seeing only that clause's: a Chinese
 * clause is read by {@link Chinese}; an English one ({@link #readEnglish}) is none if it defines a code term or
 * captions a command, else, from its first word that is no filler, by {@link LeadingCondition} alone if it opens with
 * a condition ("If …, …"), or else by the openings ({@link #readOpening}), every "you" ({@link SecondPerson}) and the
 * fallbacks ({@link #readFallbacks}) in order; then what the words around it make of what was found (a prohibition
 * heading, "freely", a rule label before it);
 * <li>once every clause is read, the sentence-level resolution ({@link Candidates#resolve}) withdraws the rules of
 * a label whose value shows it to name a command or a component;
 * <li>the decision ({@link Candidates#decide}) says which candidates stand: for the lexer alone, all of them.
 * </ol>
 * Each reading is a class of its own with its word lists as resources ({@link Words}); the order is here, top to
 * bottom.
 *
 * <p>What is not a rule: a modal whose subject is other people ("Reviewers must approve"), "you can"/"you may"
 * in the middle of a sentence ("a script you can run"), anything inside the leading subordinate clause of a
 * sentence ("If you must …, …") — the main clause after its comma is read — and code spans, which are opaque.
 * Markdown emphasis ({@code **must**}), zero-width and bidi characters do not hide a rule.
 *
 * <p>The scan walks the text once, clause by clause, and keeps token boundaries in int arrays reused for the
 * whole text: it allocates nothing per character, a clause view per clause and what each rule found needs. The
 * readings are called directly, not through a list of objects: that keeps the calls inlinable, which measured
 * about 7 % of the lexer's time. All state is per call or per thread, so one instance serves every thread.
 */
public final class DeonticLexer {

    /** One reader per thread: its buffers are reused from text to text instead of allocated per call. */
    private static final ThreadLocal<TextReader> READERS = ThreadLocal.withInitial(TextReader::new);

    /** The rules in {@code text}, in order of appearance, read without the headings above it. */
    public List<Rule> rules(CharSequence text) {
        return rules(text, SectionKind.PLAIN);
    }

    /** The rules in {@code text}, in order of appearance, read under headings of the given kind. */
    public List<Rule> rules(CharSequence text, SectionKind section) {
        return rules(text, section, Decision.LEXER);
    }

    /** The rules in {@code text} read under headings of the given kind, as {@code decision} decides on the candidates. */
    public List<Rule> rules(CharSequence text, SectionKind section, Decision decision) {
        return READERS.get().read(text, section, decision);
    }

    /**
     * The openings: how a clause's first words, at token {@code w}, make it a rule — the clause's start, or where a
     * main clause or a continuation starts. Tried in order; the first form the words take reads them (whether it
     * finds a rule or not), and the rest are not tried.
     */
    static boolean readOpening(Clause clause, int w, ClauseRules found) {
        return SecondPerson.opening(clause, w, found)      // "You must …", "You are a …"
                || Imperative.adverbs(clause, w, found)    // "Always …", "Never …", "Don't …", "Make sure …"
                || Persona.roles(clause, w, found)         // "Act as …", "Your job is …", "The goal is to …"
                || Imperative.phrases(clause, w, found)    // "Feel free to …", "Time to …", "Remember to …"
                || Imperative.verbs(clause, w, found)      // "Be …", "Do a …", "Use …", "Auto-detect …"
                || Persona.firstPerson(clause, w, found)   // "I am …", "I will …", "I won't …"
                || TerseNorm.opening(clause, w, found)     // "No filler.", "Bullets over prose."
                || only(clause, w, found)                  // "ONLY use uv": the words after it
                || Imperative.openClass(clause, w, found); // a WordNet verb before an object: "Spawn a coding agent"
    }

    /** "ONLY use uv": the openings read the words after "only". */
    private static boolean only(Clause clause, int w, ClauseRules found) {
        if (!clause.is(w, "only") || w + 1 >= clause.count()) {
            return false;
        }
        readOpening(clause, w + 1, found);
        return true;
    }

    /**
     * An English clause: nothing in a code term's definition, nothing in a command's caption (which withdraws the
     * caption's rules), else the readings (unless the clause quotes) and the revisions; returns what the clause
     * withdraws from the label before it.
     */
    private static Withdrawal readEnglish(Clause clause, ClauseRules found) {
        if (Labels.definesCode(clause)) {
            return Withdrawal.NONE;
        }
        if (Labels.commandCaption(clause)) {
            return Withdrawal.ALL;
        }
        Withdrawal withdrawal = Labels.describingValue(clause) ? Withdrawal.IMPERATIVES : Withdrawal.NONE;
        if (!clause.quoted()) {
            readClause(clause, found);
        }
        // what the words around the clause make of the rules found in it
        ProhibitionList.read(clause, found);  // under "## Never", "Edit generated files" forbids
        Imperative.readFreely(clause, found); // "Edit the drafts freely" permits
        Labels.readLabelled(clause, found);   // "Never: edit generated files", "FORBIDDEN: `uv pip install`"
        return withdrawal;
    }

    /**
     * The readings of an English clause from its first word that is no filler ("No, I won't …" reads past the answer
     * word): a leading condition alone, or else the openings, every "you", then the fallbacks.
     */
    private static void readClause(Clause clause, ClauseRules found) {
        int i = clause.skipFillers(0);
        if ((clause.is(i, "no") || clause.is(i, "yes")) && clause.commaAfter(i)) {
            i = clause.skipFillers(i + 1);
        }
        if (i >= clause.count()) {
            return;
        }
        if (clause.in(Lexicon.SUBORDINATORS, i)) {
            LeadingCondition.read(clause, i, found);
            return;
        }
        readOpening(clause, i, found);
        SecondPerson.anywhere(clause, i, found);
        readFallbacks(clause, i, found);
    }

    /** The readings tried in order on a clause nothing found a rule in yet, until one finds one. */
    private static void readFallbacks(Clause clause, int i, ClauseRules found) {
        if (found.isEmpty()) {
            SubjectModal.read(clause, i, found);  // "Every PR must include a benchmark", "It is important to …"
        }
        if (found.isEmpty()) {
            Continuation.read(clause, i, found);  // "…, then escalate to Neo", "… — follow the workflow"
        }
        if (found.isEmpty()) {
            Routing.read(clause, i, found);       // "Anomalies suggesting fraud → Seraph"
        }
        if (found.isEmpty()) {
            Parenthetical.read(clause, i, found); // "`uv.lock` (commit this file)"
        }
        if (found.isEmpty()) {
            Please.read(clause, i, found);        // "if the build fails please open an issue"
        }
        if (found.isEmpty()) {
            Convention.read(clause, i, found);    // under a rule heading: "Errors use `anyhow::Result`"
        }
    }

    /** One thread's tokenizer and candidates, reused from text to text. */
    private static final class TextReader {
        private final ClauseScanner scanner = new ClauseScanner();
        private final Candidates candidates = new Candidates();

        List<Rule> read(CharSequence text, SectionKind section, Decision decision) {
            scanner.reset(text);
            candidates.reset();
            Clause previous = null;
            char openedAfter = 0; // the mark that ended the last clause with tokens before the previous one
            while (scanner.hasNext()) {
                Context context = Labels.after(previous, openedAfter, candidates.lastClauseFound());
                if (previous != null && previous.count() > 0) {
                    openedAfter = previous.boundary();
                }
                Clause clause = scanner.next(section, context);
                ClauseRules found = candidates.open(clause);
                if (clause.han()) {
                    Chinese.read(clause, found);
                } else if (clause.count() > 0) {
                    candidates.withdraw(readEnglish(clause, found));
                }
                previous = clause;
            }
            candidates.resolve();
            return candidates.decide(text, decision);
        }
    }
}
