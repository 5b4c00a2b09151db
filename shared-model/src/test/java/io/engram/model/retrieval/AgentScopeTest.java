package io.engram.model.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class AgentScopeTest {

    @Test
    void anAgentSeesItsOwnDocumentsTheSharedOnesAndRecordsOfNoAgent() {
        AgentScope coder = new AgentScope("coder");
        assertThat(coder.sees("coder")).isTrue();
        assertThat(coder.sees(AgentScope.SHARED)).isTrue();
        assertThat(coder.sees(null)).isTrue();
        assertThat(coder.sees("writer")).isFalse();
        assertThat(coder.agents()).containsExactly("coder", "*");
        assertThat(AgentScope.SHARED_ONLY.sees("coder")).isFalse();
        assertThat(AgentScope.SHARED_ONLY.sees("*")).isTrue();
        assertThat(AgentScope.SHARED_ONLY.agents()).containsExactly("*");
    }

    @Test
    void aReadOfNoAgentIsForTheTenantsOneAgentOrTheSharedDocumentsOnly() {
        assertThat(AgentScope.of(null, List.of())).isEqualTo(AgentScope.SHARED_ONLY);
        assertThat(AgentScope.of(null, List.of("coder", "*", "coder"))).isEqualTo(new AgentScope("coder"));
        assertThat(AgentScope.of(null, List.of("coder", "writer", "*"))).isEqualTo(AgentScope.SHARED_ONLY);
        assertThat(AgentScope.of("writer", List.of("coder"))).isEqualTo(new AgentScope("writer"));
    }

    @Test
    void theSharedMarkIsNoAgentToReadFor() {
        assertThatThrownBy(() -> new AgentScope("*")).isInstanceOf(IllegalArgumentException.class);
    }
}
