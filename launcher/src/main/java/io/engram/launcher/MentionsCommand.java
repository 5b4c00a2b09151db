package io.engram.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.engram.model.entities.EntityMentions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(name = "mentions", mixinStandardHelpOptions = true,
        description = {"Print the entities each line of standard input mentions.",
                "One JSON array of names per line, as the pipeline indexes them (docs/algorithms.md, \"Entities\")."})
final class MentionsCommand implements Callable<Integer> {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                out.println(JSON.writeValueAsString(EntityMentions.in(line)));
            }
        }
        out.flush();
        return 0;
    }
}
