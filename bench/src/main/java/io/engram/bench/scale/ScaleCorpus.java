package io.engram.bench.scale;

import io.engram.client.Payload;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

/**
 * What {@code ./engram bench scale} loads, generated on demand and the same on every run: per tenant, one agent
 * document (one of the repository's real ones, under a preamble of the tenant's own), and its records in rounds —
 * a session of up to {@value #TURNS_PER_SESSION} turns of one of its users, then up to {@value #MEMORIES_PER_ROUND}
 * gateway memories of that user — until the tenant holds its share. Memories fall into cycles of
 * {@value #MEMORIES_PER_CYCLE}.
 */
public final class ScaleCorpus {

    static final int TURNS_PER_SESSION = 20;
    static final int MEMORIES_PER_ROUND = 5;
    static final int MEMORIES_PER_CYCLE = 100;
    private static final String[] TOPICS = {"the quarterly budget review", "migrating the billing service",
        "hiring a data engineer", "the office move to the harbour building", "renewing the cloud contract",
        "the staging database restore", "invoices in euros", "the on-call rota", "a kayak trip on the fjord",
        "the customer churn dashboard", "rotating the API keys", "the vendor security questionnaire",
        "onboarding the new designer", "the Kubernetes upgrade", "the marketing launch in Lisbon",
        "payroll for contractors", "the incident with the payment gateway", "the mobile app release",
        "a dentist appointment on Thursday", "the board meeting slides", "the warehouse inventory count",
        "the GDPR data request", "the team offsite in Porto", "switching the CRM", "the flaky integration tests",
        "the school holiday schedule", "the pricing page experiment", "the car lease renewal",
        "the support backlog", "the annual tax filing"};
    private static final String[] ASKS = {"Can you help me with %s?", "What did we decide about %s?",
        "Remind me where we are on %s.", "I need a short plan for %s.", "Who owns %s now?",
        "Is anything blocking %s this week?"};
    private static final String[] ANSWERS = {"Here is where %s stands: the draft is ready and needs one review.",
        "For %s we agreed to wait for the numbers from finance before committing.",
        "%s is on track; the next step is a call with the owner on Monday.",
        "A plan for %s: list the open items, assign an owner to each, check in on Friday.",
        "Nothing blocks %s except the missing sign-off from legal."};
    private static final String[] NOTES = {"%s prefers short written updates about %s.",
        "%s decided that %s moves to next quarter.", "Lesson: %s goes faster when %s has a single owner.",
        "%s asked to be reminded about %s every Monday."};

    private final List<String> documents;

    private ScaleCorpus(List<String> documents) {
        this.documents = documents;
    }

    /** The corpus over the real agent documents in {@code dir} (files named {@code owner+repo__NAME.md}). */
    public static ScaleCorpus over(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            List<String> documents = files.filter(f -> f.getFileName().toString().contains("__")).sorted()
                    .map(ScaleCorpus::read).toList();
            if (documents.isEmpty()) {
                throw new IllegalArgumentException("no agent document (owner+repo__NAME.md) in " + dir);
            }
            return new ScaleCorpus(documents);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }

    /** A tenant: its id, how many turns and memories it holds, and how many users write them. */
    public record Tenant(String id, int records, int users) {

        /** The tenant of rank {@code rank} (0: the largest) holding {@code records}. */
        static Tenant of(int rank, int records) {
            return new Tenant(String.format("tenant-%04d", rank), records, Math.max(2, Math.min(20, records / 250)));
        }

        /** The user who wrote session {@code session}. */
        public String user(int session) {
            return "u" + (session % users);
        }
    }

    /** The tenants of the given sizes, largest first. */
    public static List<Tenant> tenants(int[] sizes) {
        List<Tenant> out = new ArrayList<>(sizes.length);
        for (int rank = 0; rank < sizes.length; rank++) {
            out.add(Tenant.of(rank, sizes[rank]));
        }
        return out;
    }

    /** The tenant's agent document: a preamble of its own, then one of the real documents. */
    public Payload document(Tenant tenant, Instant ts) {
        int rank = Integer.parseInt(tenant.id().substring(tenant.id().lastIndexOf('-') + 1));
        String content = "# Agent of " + tenant.id() + "\n\nThis agent works for team " + rank
                + ". Always answer in plain English and keep " + TOPICS[rank % TOPICS.length] + " private.\n\n"
                + documents.get(rank % documents.size());
        return Payload.doc(tenant.id(), "agent", "AGENTS.md", "standard", 1, content, ts);
    }

    /** A tenant's records, round by round; each round's records are stamped one second apart from a clock. */
    public static final class Rounds {
        private final Tenant tenant;
        private final Random random;
        private int produced;
        private int session;
        private int memories;

        public Rounds(Tenant tenant) {
            this.tenant = tenant;
            this.random = new Random(tenant.id().hashCode());
        }

        public boolean hasNext() {
            return produced < tenant.records();
        }

        /** The next round: a session's turns, then the user's memories, as many as the tenant still holds. */
        public List<Payload> next(EventClock clock) {
            List<Payload> round = new ArrayList<>();
            String user = tenant.user(session);
            String sessionId = "s" + session;
            for (int seq = 0; seq < TURNS_PER_SESSION && produced < tenant.records(); seq++, produced++) {
                String topic = TOPICS[random.nextInt(TOPICS.length)];
                String text = String.format(seq % 2 == 0 ? ASKS[random.nextInt(ASKS.length)]
                        : ANSWERS[random.nextInt(ANSWERS.length)], topic) + " (" + tenant.id() + " " + sessionId + "/" + seq + ")";
                round.add(Payload.turn(tenant.id(), sessionId, user, "t" + seq, seq, seq % 2 == 0 ? "user" : "assistant",
                        text, clock.next()));
            }
            for (int m = 0; m < MEMORIES_PER_ROUND && produced < tenant.records(); m++, produced++, memories++) {
                String note = String.format(NOTES[random.nextInt(NOTES.length)], "User " + user,
                        TOPICS[random.nextInt(TOPICS.length)]) + " (" + tenant.id() + " m" + memories + ")";
                Payload memory = Payload.memory(tenant.id(), "m" + memories, memories % 4 == 3 ? "lesson" : "memory", note,
                        List.of(), 0, "c" + memories / MEMORIES_PER_CYCLE, clock.next());
                memory.json().put("user_id", user);
                round.add(memory);
            }
            session++;
            return round;
        }
    }

    /** Event time: one second per record from a start, so that the input is in order and nothing arrives late. */
    public static final class EventClock {
        private Instant now;

        public EventClock(Instant start) {
            this.now = start;
        }

        public Instant next() {
            now = now.plusSeconds(1);
            return now;
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }
}
