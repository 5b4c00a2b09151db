package io.engram.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A line of a command's JSON-lines input, numbered from 1 so an error can say where. */
record JsonLine(int number, String text) {

    /** The lines of a UTF-8 file that are not blank, in order. */
    static List<JsonLine> read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        List<JsonLine> read = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).isBlank()) {
                read.add(new JsonLine(i + 1, lines.get(i)));
            }
        }
        return read;
    }
}
