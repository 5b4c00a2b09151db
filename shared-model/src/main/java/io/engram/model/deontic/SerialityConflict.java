package io.engram.model.deontic;

/**
 * The same action both obligatory and forbidden in one document (a violation of axiom D, O(φ) → ¬F(φ)).
 *
 * @param action          the normalised action both rules name
 * @param obligatoryNode  index of the node holding O(φ)
 * @param forbiddenNode   index of the node holding F(φ)
 */
public record SerialityConflict(String action, int obligatoryNode, int forbiddenNode) {
}
