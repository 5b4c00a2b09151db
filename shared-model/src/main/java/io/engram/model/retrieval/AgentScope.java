package io.engram.model.retrieval;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Whose agent documents a read sees (docs/api.md, "Agents"). A record that names no agent (a turn, a summary, a
 * memory written without one) is seen by every read of its tenant; a record of an agent's document only by reads
 * for that agent; a record of a document the tenant shares with all its agents ({@code agent_id} {@value #SHARED})
 * by every read. A read that names no agent is for the tenant's one agent when its documents belong to one, and
 * sees the shared documents only when they belong to several: it never mixes two agents' rules.
 *
 * @param agentId the agent read for; null for the shared documents only
 */
public record AgentScope(String agentId) {

    /** The {@code agent_id} of a document the tenant shares with all its agents. */
    public static final String SHARED = "*";
    /** The shared documents only. */
    public static final AgentScope SHARED_ONLY = new AgentScope(null);

    public AgentScope {
        if (SHARED.equals(agentId)) {
            throw new IllegalArgumentException("'" + SHARED + "' names the shared documents, not an agent to read for");
        }
    }

    /** A read for {@code agentId}, or, when it is null, a read that names no agent in a tenant with these agents. */
    public static AgentScope of(String agentId, Collection<String> documentAgents) {
        if (agentId != null) {
            return new AgentScope(agentId);
        }
        Set<String> own = new TreeSet<>(documentAgents);
        own.remove(SHARED);
        return own.size() == 1 ? new AgentScope(own.iterator().next()) : SHARED_ONLY;
    }

    /** Whether this read sees a record of {@code recordAgentId} (null: a record of no agent). */
    public boolean sees(String recordAgentId) {
        return recordAgentId == null || SHARED.equals(recordAgentId) || recordAgentId.equals(agentId);
    }

    /** The agent ids whose records this read sees besides records of no agent. */
    public List<String> agents() {
        return agentId == null ? List.of(SHARED) : List.of(agentId, SHARED);
    }
}
