package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class MentionsCommandTest {

    @Test
    void printsTheNamesOfEachLineAsAJsonArray() {
        InputStream stdin = System.in;
        StringWriter out = new StringWriter();
        try {
            System.setIn(new ByteArrayInputStream("Caroline: I moved here from Sweden with Anna.\n\nno names here\n"
                    .getBytes(StandardCharsets.UTF_8)));
            CommandLine cli = EngramCli.commandLine();
            cli.setOut(new PrintWriter(out));
            assertThat(cli.execute("mentions")).isZero();
        } finally {
            System.setIn(stdin);
        }
        assertThat(out.toString().split("\n")).containsExactly("[\"sweden\",\"anna\"]", "[]", "[]");
    }
}
