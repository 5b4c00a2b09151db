package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** What {@code ./engram --help} and each command's list of subcommands show. */
class CommandLineHelpTest {

    @Test
    void everyCommandListsWithOneWholeSentence() {
        List<CommandLine> commands = new ArrayList<>();
        collect(EngramCli.commandLine(), commands);
        assertThat(commands).hasSizeGreaterThan(20);
        for (CommandLine command : commands) {
            String[] description = command.getCommandSpec().usageMessage().description();
            String name = command.getCommandSpec().qualifiedName();
            assertThat(description).as(name).isNotEmpty();
            // a command list shows only the first line: it must be a sentence of its own
            assertThat(description[0]).as(name).endsWith(".").doesNotContain("${");
        }
    }

    @Test
    void theTopLevelHelpCutsNoDescription() {
        CliRun help = CliRun.of("--help");
        assertThat(help.exit()).isZero();
        String commands = help.out().substring(help.out().indexOf("Commands:"));
        // one entry per command: its line, and the lines a long description wraps onto (indented further)
        List<String> entries = new ArrayList<>();
        for (String line : commands.split("\n")) {
            if (line.matches("  \\S.*")) {
                entries.add(line.strip());
            } else if (line.startsWith("   ") && !entries.isEmpty()) {
                entries.set(entries.size() - 1, entries.get(entries.size() - 1) + " " + line.strip());
            }
        }
        assertThat(entries).hasSizeGreaterThan(10).allSatisfy(entry -> assertThat(entry).endsWith("."));
    }

    private static void collect(CommandLine command, List<CommandLine> into) {
        into.add(command);
        command.getSubcommands().values().stream().distinct().forEach(sub -> collect(sub, into));
    }
}
