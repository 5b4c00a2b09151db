package io.engram.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
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
    private final byte[] buffer = new byte[64 * 1024];
    private int position;
    private int filled;
    private final int maxLineBytes;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private long number;
    private boolean ended;

    ImportLines(InputStream in, int maxLineBytes) {
        this.in = in;
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
        while (true) {
            if (position == filled) {
                filled = in.read(buffer);
                position = 0;
                if (filled <= 0) {
                    filled = 0;
                    ended = true;
                    return within;
                }
            }
            int newline = position;
            while (newline < filled && buffer[newline] != '\n') {
                newline++;
            }
            int room = maxLineBytes - line.size();
            within &= newline - position <= room; // past the bound the rest of the line is read and dropped
            line.write(buffer, position, Math.min(newline - position, Math.max(room, 0)));
            position = Math.min(newline + 1, filled);
            if (newline < filled) {
                return within;
            }
        }
    }
}
