package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./engram status} when there is nothing to show: nothing running here (answered at once, without asking
 * any server), records of an {@code up} that died, and servers that do not answer, each named with why. Its view
 * of a running {@code up}, found without flags, is in {@link MonitoringChecks}.
 */
class StatusCommandTest {

    @TempDir
    Path home;
    private String homeBefore;

    @BeforeEach
    void ownHome() {
        homeBefore = System.getProperty("engram.home");
        System.setProperty("engram.home", home.toString());
    }

    @AfterEach
    void homeBack() {
        if (homeBefore == null) {
            System.clearProperty("engram.home");
        } else {
            System.setProperty("engram.home", homeBefore);
        }
    }

    @Test
    void withNothingRunningHereItSaysSoAndHowToGoOn() {
        CliRun status = CliRun.of("status");

        assertThat(status.exit()).isEqualTo(1);
        assertThat(status.out()).isEqualTo(
                "nothing is running here: start `./engram up`, or give --config FILE / --rest URL" + System.lineSeparator());
    }

    @Test
    void theRecordsOfAnUpThatDiedAreRemoved() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path dead = record(gone.pid(), "2026-01-01T00:00:00Z");
        // this process id, but a process started at another time: the id was reused
        Path reused = record(ProcessHandle.current().pid(), "2000-01-01T00:00:00Z");

        CliRun status = CliRun.of("status");

        assertThat(status.exit()).isEqualTo(1);
        assertThat(status.out()).contains("removed " + dead + ": the up it records (process " + gone.pid()
                + ") no longer runs", "removed " + reused, "nothing is running here");
        assertThat(dead).doesNotExist();
        assertThat(reused).doesNotExist();
    }

    @Test
    void eachServerThatDoesNotAnswerIsNamedWithWhy() throws Exception {
        int flink = closedPort();
        int kafka = closedPort();
        int postgres = closedPort();
        Path settings = home.resolve("pipeline.properties");
        Files.writeString(settings, String.join("\n", "kafka.bootstrap=127.0.0.1:" + kafka,
                "postgres.url=jdbc:postgresql://127.0.0.1:" + postgres + "/engram", "flink.rest.port=" + flink));

        CliRun status = CliRun.of("status", "--config", settings.toString());

        assertThat(status.exit()).isEqualTo(1);
        assertThat(status.out().lines()).containsExactly(
                "job:        Flink's REST API at http://127.0.0.1:" + flink + " did not answer: connection refused",
                "lag:        Kafka at 127.0.0.1:" + kafka + " did not answer: connection refused",
                "rejects:    Kafka at 127.0.0.1:" + kafka + " did not answer: connection refused",
                "alerts:     PostgreSQL at jdbc:postgresql://127.0.0.1:" + postgres + "/engram did not answer: connection refused");
        assertThat(status.out() + status.err()).doesNotContain("null");
    }

    private Path record(long pid, String started) throws Exception {
        Path file = home.resolve("run").resolve("up-" + pid + ".properties");
        Files.createDirectories(file.getParent());
        Files.writeString(file, String.join("\n", "pid=" + pid, "started=" + started, "api=http://127.0.0.1:1",
                "settings=" + home.resolve("gone.properties")));
        return file;
    }

    /** A port nothing listens on: taken from the system, then given back. */
    private static int closedPort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
