package io.engram.model.retrieval;

import io.engram.model.deontic.DeonticLexer;
import io.engram.model.deontic.RuleStrength;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * The order in which a context takes its hard rules when they do not all fit its budget: the binding ones
 * (prohibitions and obligations) before permissions and conventions, within each the ones that hold more of the
 * query's content words first, then the stronger ({@link RuleStrength}), then as the documents give them.
 */
final class RulePriority {

    private static final DeonticLexer LEXER = new DeonticLexer();

    private RulePriority() {
    }

    private record Ranked(ContextItem rule, int strength, int queryWords, int order) {
    }

    static List<ContextItem> order(List<ContextItem> rules, String query) {
        Set<String> wanted = query == null ? Set.of() : WindowTurnFocus.contentWords(query);
        List<Ranked> ranked = new ArrayList<>(rules.size());
        for (int i = 0; i < rules.size(); i++) {
            ContextItem rule = rules.get(i);
            int strength = RuleStrength.rank(LEXER.rules(rule.text()));
            int held = 0;
            if (!wanted.isEmpty()) {
                Set<String> words = WindowTurnFocus.contentWords(rule.text());
                held = (int) wanted.stream().filter(words::contains).count();
            }
            ranked.add(new Ranked(rule, strength, held, i));
        }
        ranked.sort(Comparator.comparing((Ranked r) -> !RuleStrength.binding(r.strength()))
                .thenComparing(Comparator.comparingInt(Ranked::queryWords).reversed())
                .thenComparingInt(Ranked::strength)
                .thenComparingInt(Ranked::order));
        return ranked.stream().map(Ranked::rule).toList();
    }
}
