package io.engram.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretsTest {

    @Test
    void aPlainValueIsItself() {
        assertThat(Secrets.resolve("hunter2")).isEqualTo("hunter2");
        assertThat(Secrets.resolve("")).isEmpty();
        assertThat(Secrets.resolve("prefix ${file:/x}")).as("only a whole value is a reference").isEqualTo("prefix ${file:/x}");
    }

    @Test
    void aFileReferenceIsTheFileWithoutItsLastLineBreak(@TempDir Path dir) throws Exception {
        Path secret = Files.writeString(dir.resolve("password"), "s3cret\n");
        assertThat(Secrets.resolve("${file:" + secret + "}")).isEqualTo("s3cret");
        Path jaas = Files.writeString(dir.resolve("jaas"), "Module required\n  password=\"x\";");
        assertThat(Secrets.resolve(" ${file:" + jaas + "} ")).isEqualTo("Module required\n  password=\"x\";");
    }

    @Test
    void anEnvironmentReferenceIsTheVariable() {
        Map.Entry<String, String> any = System.getenv().entrySet().iterator().next();
        assertThat(Secrets.resolve("${env:" + any.getKey() + "}")).isEqualTo(any.getValue());
    }

    @Test
    void aReferenceToNothingIsAnErrorThatNamesIt(@TempDir Path dir) {
        assertThatThrownBy(() -> Secrets.resolve("${env:ENGRAM_NO_SUCH_VARIABLE}"))
                .hasMessage("${env:ENGRAM_NO_SUCH_VARIABLE}: the environment variable ENGRAM_NO_SUCH_VARIABLE is not set");
        assertThatThrownBy(() -> Secrets.resolve("${file:" + dir.resolve("missing") + "}"))
                .hasMessageStartingWith("${file:" + dir.resolve("missing") + "}: cannot read");
    }
}
