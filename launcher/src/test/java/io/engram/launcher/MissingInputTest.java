package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A command whose input file is missing says so in one line naming the option, with no stack trace. */
class MissingInputTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "eval locomo --data                | --data",
            "compact --session                 | --session",
            "collapse evaluate --rows          | --rows",
            "collapse shape --records          | --records",
            "run --config                      | --config",
            "recall --tenant t --query q --config | --config",
            "sql --file                        | --file",
            "partition                         | FILE"})
    void aMissingFileIsOneLineNamingTheOption(String command, String option) {
        String missing = dir.resolve("absent.json").toString();
        String[] words = command.trim().split(" ");
        String[] args = java.util.Arrays.copyOf(words, words.length + 1);
        args[words.length] = missing;

        CliRun run = CliRun.of(args);

        assertThat(run.exit()).isEqualTo(2);
        String[] lines = run.err().strip().split("\n");
        assertThat(lines).hasSize(2);
        assertThat(lines[0]).startsWith("engram: Invalid value for ").contains(option.trim())
                .contains("no such file or directory: " + missing);
        assertThat(lines[1]).startsWith("Try 'engram ").endsWith(" --help' for more information.");
        assertThat(run.err()).doesNotContain("Exception").doesNotContain("\tat ");
        assertThat(run.out()).isEmpty();
    }
}
