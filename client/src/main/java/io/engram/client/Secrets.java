package io.engram.client;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A setting's value as written, or the secret it names: {@code ${env:NAME}} is the environment variable NAME,
 * {@code ${file:PATH}} the contents of the file at PATH without the trailing line break (how a Kubernetes Secret or
 * a compose secret is mounted). Settings files keep the reference, not the secret; it is resolved where a client
 * is opened, so it is never in a committed file, a log line or Flink's job configuration.
 */
public final class Secrets {

    private static final Pattern REFERENCE = Pattern.compile("\\$\\{(env|file):([^}]+)}");

    private Secrets() {
    }

    /** {@code value} itself unless it is exactly one reference; a reference to nothing is an error naming it. */
    public static String resolve(String value) {
        Matcher m = value == null ? null : REFERENCE.matcher(value.strip());
        if (m == null || !m.matches()) {
            return value;
        }
        String name = m.group(2);
        if (m.group(1).equals("env")) {
            String secret = System.getenv(name);
            if (secret == null) {
                throw new IllegalArgumentException("${env:" + name + "}: the environment variable " + name + " is not set");
            }
            return secret;
        }
        try {
            return Files.readString(Path.of(name)).replaceAll("\\R\\z", "");
        } catch (IOException e) {
            throw new IllegalArgumentException("${file:" + name + "}: cannot read " + name + " (" + e + ")", e);
        }
    }
}
