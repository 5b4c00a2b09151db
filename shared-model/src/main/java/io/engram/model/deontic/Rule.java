package io.engram.model.deontic;

/**
 * One rule addressed to the agent.
 *
 * @param modality obligatory, forbidden or permitted
 * @param action   the action phrase the modality applies to, as written (markup removed)
 * @param trigger  what made it a rule: the phrase a reading matched (descriptive; it decides nothing)
 */
public record Rule(Modality modality, String action, Trigger trigger) {
}
