import io.engram.model.deontic.DeonticLexer;
import io.engram.model.deontic.Rule;
import io.engram.model.deontic.SectionKind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Reads a labelled set with the lexer compiled beside it; prints, per sentence: index, 1/0 found, first modality. */
public class FrozenLexerRun {
    public static void main(String[] args) throws Exception {
        DeonticLexer lexer = new DeonticLexer();
        List<String> columns = null;
        int index = 0;
        for (String line : Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8)) {
            if (line.startsWith("#")) {
                continue;
            }
            String[] parts = line.split("\t", -1);
            if (columns == null) {
                columns = List.of(parts);
                continue;
            }
            String section = columns.contains("section") ? parts[columns.indexOf("section")] : "";
            List<String> path = section.isEmpty() ? List.of() : List.of(section.split(" > "));
            List<Rule> rules = lexer.rules(parts[columns.indexOf("sentence")], SectionKind.of(path));
            System.out.println(index++ + "\t" + (rules.isEmpty() ? "0\t-" : "1\t" + rules.get(0).modality().code()));
        }
    }
}
