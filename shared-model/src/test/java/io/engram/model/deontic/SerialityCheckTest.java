package io.engram.model.deontic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SerialityCheckTest {

    private final DeonticLexer lexer = new DeonticLexer();

    @Test
    void theSameActionObligatoryAndForbiddenIsAConflict() {
        List<List<Rule>> byNode = List.of(
                lexer.rules("Always use tabs."),
                lexer.rules("Keep lines short."),
                lexer.rules("Avoid using tabs."));
        assertThat(SerialityCheck.conflicts(byNode))
                .containsExactly(new SerialityConflict("use tabs", 0, 2));
    }

    @Test
    void differentActionsAndPermissionsDoNotConflict() {
        List<List<Rule>> byNode = List.of(
                lexer.rules("Always use tabs."),
                lexer.rules("Never use spaces."),
                lexer.rules("You may use tabs in Makefiles."));
        assertThat(SerialityCheck.conflicts(byNode)).isEmpty();
    }

    @Test
    void actionKeysIgnoreCaseFunctionWordsAndInflection() {
        assertThat(SerialityCheck.actionKey("Using the tabs")).isEqualTo(SerialityCheck.actionKey("use tabs"));
        assertThat(SerialityCheck.actionKey("push to main")).isEqualTo("push main");
    }
}
