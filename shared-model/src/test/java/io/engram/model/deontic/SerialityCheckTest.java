package io.engram.model.deontic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SerialityCheckTest {

    private final DeonticLexer lexer = new DeonticLexer();

    /** The conflicts among nodes of one sentence each, node by node as the lexer reads them. */
    private List<SerialityConflict> conflicts(String... nodes) {
        return SerialityCheck.conflicts(Arrays.stream(nodes).map(lexer::rules).toList());
    }

    @Test
    void theSameActionObligatoryAndForbiddenIsAConflict() {
        assertThat(conflicts("Always use tabs.", "Keep lines short.", "Avoid using tabs."))
                .containsExactly(new SerialityConflict("use tabs", 0, 2));
    }

    @Test
    void differentActionsAndPermissionsDoNotConflict() {
        assertThat(conflicts("Always use tabs.", "Never use spaces.", "You may use tabs in Makefiles.")).isEmpty();
    }

    @Test
    void actionKeysIgnoreCaseFunctionWordsAndInflection() {
        assertThat(SerialityCheck.actionKey("Using the tabs")).isEqualTo(SerialityCheck.actionKey("use tabs"));
        assertThat(SerialityCheck.actionKey("push to main")).isEqualTo("push main");
    }
}
