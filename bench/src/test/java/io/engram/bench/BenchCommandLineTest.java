package io.engram.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.launcher.EngramCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** {@code ./engram bench}'s command line: what it refuses before it starts any server. */
class BenchCommandLineTest {

    @TempDir
    Path dir;

    private record Run(int exit, String err) {
    }

    private static Run run(String... args) {
        StringWriter err = new StringWriter();
        CommandLine cli = EngramCli.configured(new BenchCommand());
        cli.setErr(new PrintWriter(err));
        cli.setOut(new PrintWriter(new StringWriter()));
        return new Run(cli.execute(args), err.toString());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "compaction --data           | --data",
            "pipeline --data             | --data",
            "pipeline --agent-documents  | --agent-documents",
            "footprint --data            | --data"})
    void aMissingFileIsOneLineNamingTheOption(String command, String option) {
        String missing = dir.resolve("absent.json").toString();
        String[] words = command.trim().split(" ");
        Run run = run(words[0], words[1], missing);
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).startsWith("engram: Invalid value for option '" + option.trim() + "'")
                .contains("no such file or directory: " + missing).doesNotContain("\tat ");
    }

    @Test
    void theLocomoBenchmarksNeedTheirDataNamed() {
        assertThat(run("pipeline").err()).startsWith("engram: Missing required option: '--data=FILE'");
        assertThat(run("compaction").err()).startsWith("engram: Missing required option: '--data=FILE'");
        assertThat(run("pipeline").exit()).isEqualTo(2);
    }

    @Test
    void theFootprintRefusesAnEmptySample() {
        Run run = run("footprint", "--queries", "0");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).startsWith("engram: --documents, --queries and --k must be at least 1");
    }

    @Test
    void theAgentDocumentsDefaultToTheRepositorysOwn() {
        CommandLine cli = EngramCli.configured(new BenchCommand());
        CommandLine pipeline = cli.getSubcommands().get("pipeline");
        String defaultValue = pipeline.getCommandSpec().findOption("--agent-documents").defaultValue();
        // ./engram passes the repository as engram.root; the build passes it to the tests
        assertThat(defaultValue).isEqualTo(System.getProperty("engram.root") + "/data/agents-md");
        assertThat(Path.of(defaultValue)).isDirectory();
    }
}
