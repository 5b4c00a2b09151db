package io.engram.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.service.ResponsesJson;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads LoCoMo conversations (snap-research/LoCoMo's JSON): each sample's sessions in order, each turn with its
 * speaker, dialogue id and text (an image's caption appended), timestamped by its session's date-time.
 */
public final class LocomoData {

    private static final DateTimeFormatter SESSION_TIME =
            DateTimeFormatter.ofPattern("h:mm a 'on' d MMMM, yyyy", Locale.ENGLISH);

    /** One dialogue turn. */
    public record Turn(String diaId, String speaker, String text, Instant ts, int session) {
    }

    /** One conversation: its id, two speakers and turns in order. */
    public record Conversation(String sampleId, String speakerA, String speakerB, List<Turn> turns) {
    }

    private LocomoData() {
    }

    /** The QA items of one sample. */
    static List<JsonNode> questions(Path file, String sampleId) throws IOException {
        List<JsonNode> items = new ArrayList<>();
        for (JsonNode sample : ResponsesJson.JSON.readTree(file.toFile())) {
            if (sample.path("sample_id").asText().equals(sampleId)) {
                sample.path("qa").forEach(items::add);
            }
        }
        return items;
    }

    public static List<Conversation> read(Path file) throws IOException {
        JsonNode root = ResponsesJson.JSON.readTree(file.toFile());
        List<Conversation> conversations = new ArrayList<>();
        for (JsonNode sample : root) {
            JsonNode c = sample.path("conversation");
            List<Turn> turns = new ArrayList<>();
            for (int session = 1; c.has("session_" + session); session++) {
                Instant start = parseTime(c.path("session_" + session + "_date_time").asText());
                int i = 0;
                for (JsonNode t : c.path("session_" + session)) {
                    String text = t.path("text").asText();
                    if (t.hasNonNull("blip_caption")) {
                        text = text + " [image: " + t.path("blip_caption").asText() + "]";
                    }
                    // turns of a session are seconds apart in order; the session's date-time is the anchor
                    turns.add(new Turn(t.path("dia_id").asText(), t.path("speaker").asText(), text,
                            start.plusSeconds(30L * i++), session));
                }
            }
            conversations.add(new Conversation(sample.path("sample_id").asText("sample-" + conversations.size()),
                    c.path("speaker_a").asText(), c.path("speaker_b").asText(), turns));
        }
        return conversations;
    }

    /** "1:56 pm on 8 May, 2023" as UTC. */
    static Instant parseTime(String text) {
        String normalised = text.strip().replace(" am ", " AM ").replace(" pm ", " PM ");
        try {
            return LocalDateTime.parse(normalised, SESSION_TIME).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("unreadable session date-time: " + text, e);
        }
    }
}
