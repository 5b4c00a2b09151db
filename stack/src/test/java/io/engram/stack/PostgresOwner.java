package io.engram.stack;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Optional;

/** A process that starts PostgreSQL on a data directory, writes a row, says "ready" and waits to be killed. */
public final class PostgresOwner {

    private PostgresOwner() {
    }

    public static void main(String[] args) throws Exception {
        EmbeddedPostgreSql postgres = EmbeddedPostgreSql.start(new ServiceOptions(0, Optional.of(Path.of(args[0]))));
        try (Connection c = postgres.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS survivors (name text)");
            s.execute("INSERT INTO survivors VALUES ('" + args[1] + "')");
        }
        System.out.println("ready");
        System.out.flush();
        Thread.currentThread().join(); // until killed
    }
}
