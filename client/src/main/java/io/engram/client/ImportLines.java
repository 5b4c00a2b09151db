package io.engram.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * The records of an Engram export, one JSON value per line, read a line at a time: a line is held only up to
 * {@code maxLineBytes} (a longer one is reported and passed over, not kept), so memory stays bounded. Blank
 * lines are passed over; line numbers count every line from 1.
 */
final class ImportLines implements Importer.Entries {

    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private final InputStream in;
    private final int maxLineBytes;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private long number;
    private boolean ended;

    ImportLines(InputStream in, int maxLineBytes) {
        this.in = new BufferedInputStream(in, 64 * 1024);
        this.maxLineBytes = maxLineBytes;
    }

    @Override
    public Importer.Entry next() throws IOException {
        while (!ended) {
            boolean whole = readLine();
            number++;
            if (!whole) {
                return Importer.Entry.failed(number, "text_too_large: a line longer than " + maxLineBytes + " bytes");
            }
            byte[] bytes = line.toByteArray();
            if (blank(bytes)) {
                continue;
            }
            try {
                return new Importer.Entry(number, JSON.readTree(bytes), null);
            } catch (JsonProcessingException e) {
                return Importer.Entry.failed(number, "invalid_json: " + e.getOriginalMessage());
            }
        }
        return null;
    }

    private static boolean blank(byte[] bytes) {
        for (byte b : bytes) {
            if (b != ' ' && b != '\t' && b != '\r') {
                return false;
            }
        }
        return true;
    }

    /** Reads up to the next newline (or the end) into {@link #line}; false when the line was longer than the bound. */
    private boolean readLine() throws IOException {
        line.reset();
        boolean within = true;
        int b;
        while ((b = in.read()) != -1 && b != '\n') {
            if (line.size() < maxLineBytes) {
                line.write(b);
            } else {
                within = false; // the rest of the line is read and dropped
            }
        }
        ended = b == -1;
        return within;
    }
}
