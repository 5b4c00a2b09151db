package io.engram.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL runs as a child process: kill -9 of the JVM that started it leaves it running on the data directory.
 * The next start on that directory must stop it and come up with the data, not time out against it.
 */
class EmbeddedPostgreSqlCrashTest {

    @TempDir
    Path dataDir;

    @Test
    void aServerLeftByAKilledOwnerIsStoppedAndTheDataIsKept() throws Exception {
        Process owner = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                "-cp", System.getProperty("java.class.path"), PostgresOwner.class.getName(), dataDir.toString(), "before-the-kill")
                .redirectErrorStream(true).start();
        List<String> output = new ArrayList<>();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(owner.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null && !line.equals("ready"); line = lines.readLine()) {
                output.add(line);
            }
        }
        assertThat(owner.isAlive()).as("the owner started PostgreSQL: %s", output).isTrue();
        long orphanPid = Long.parseLong(Files.readAllLines(dataDir.resolve("pgdata/postmaster.pid")).get(0).strip());
        owner.destroyForcibly(); // SIGKILL: no shutdown hook, no close
        assertThat(owner.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(ProcessHandle.of(orphanPid).map(ProcessHandle::isAlive)).as("the server outlives its owner").contains(true);

        try (EmbeddedPostgreSql restarted = EmbeddedPostgreSql.start(new ServiceOptions(0, Optional.of(dataDir)))) {
            assertThat(ProcessHandle.of(orphanPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
            try (Connection c = restarted.connect(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT name FROM survivors")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("before-the-kill");
                assertThat(rs.next()).isFalse();
            }
            // a live owner is never mistaken for a dead one
            assertThatThrownBy(() -> EmbeddedPostgreSql.start(new ServiceOptions(0, Optional.of(dataDir))))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("already keeps its PostgreSQL data in");
        }
    }
}
