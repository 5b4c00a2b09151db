package io.engram.model.deontic;

/** The shipped rule reader, loaded once for the test classes that read with it (thread-safe; closed with the JVM). */
final class ShippedRuleReader {

    static final RuleReader READER = RuleReader.shipped();

    private ShippedRuleReader() {
    }
}
