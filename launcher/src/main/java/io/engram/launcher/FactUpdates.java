package io.engram.launcher;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;

/**
 * The seeded knowledge-update workload of {@code ./engram eval updates}: users with facts (where they live, where
 * they work, their dog's name, …), each fact said once and then updated one to three times by one of three means
 * — the update {@code supersedes} the memory before it, all versions share a {@code key}, or each version carries
 * its validity window — interleaved with memories about other things, some of which expire minutes after they
 * are written (after the rest). It knows each fact's value at any time. Names and values are the lists below: no data set.
 */
final class FactUpdates {

    /** How an update says which value it replaces. */
    enum Means { SUPERSEDES, KEY, VALIDITY }

    /** What a fact is about: its key, how it is said first and when it changes, how it is asked, its values. */
    record Attribute(String key, String said, String changed, String question, List<String> values) {
    }

    /** One value of a fact and the memory that says it, true from {@code from} until the next version's. */
    record Version(String memoryId, String value, Instant from) {
    }

    /** A user's fact and its versions, oldest first. */
    record Fact(String userId, String user, Attribute attribute, Means means, List<Version> versions) {

        /** The version true at {@code t}: the newest that started at or before it; none before the first. */
        Optional<Version> at(Instant t) {
            Version valid = null;
            for (Version v : versions) {
                if (!v.from().isAfter(t)) {
                    valid = v;
                }
            }
            return Optional.ofNullable(valid);
        }

        Version current() {
            return versions.get(versions.size() - 1);
        }

        /** A time at which version {@code i}, not the newest, was true: the middle of its time. */
        Instant pastTime(int i) {
            Instant from = versions.get(i).from();
            return from.plus(Duration.between(from, versions.get(i + 1).from()).dividedBy(2));
        }

        String question() {
            return String.format(Locale.ROOT, attribute.question(), user);
        }
    }

    /** A user's note that holds only for a while: when it is written and when it expires are the run's. */
    record Note(String memoryId, String userId, String text) {
    }

    /** A memory as the workload writes it (memory.v1's fields; null where it sets none). */
    record Memory(String memoryId, String userId, String text, Instant ts, String key, List<String> supersedes,
                  Instant validFrom, Instant validUntil, Instant expiresAt) {
    }

    /**
     * @param facts    every fact
     * @param memories the history to write, in writing order: the facts' versions and the other memories by time
     * @param notes    per user, a memory that expires soon after it is written ({@link #expiring})
     */
    record Workload(List<Fact> facts, List<Memory> memories, List<Note> notes) {

        /** The notes as written at {@code writtenAt}, each expiring {@code expiresIn} later. */
        List<Memory> expiring(Instant writtenAt, Duration expiresIn) {
            return notes.stream().map(n -> new Memory(n.memoryId(), n.userId(), n.text(), writtenAt, null, List.of(),
                    null, null, writtenAt.plus(expiresIn))).toList();
        }
    }

    /** The first day of the facts' history; versions fall on days within {@link #HISTORY_DAYS} of it. */
    static final Instant HISTORY_START = Instant.parse("2025-01-06T00:00:00Z");
    static final int HISTORY_DAYS = 500;

    static final List<Attribute> ATTRIBUTES = List.of(
            new Attribute("city", "%s lives in %s.", "%s has moved to %s.", "Where does %s live?", List.of(
                    "Lisbon", "Berlin", "Oslo", "Madrid", "Vienna", "Prague", "Dublin", "Warsaw", "Athens", "Helsinki")),
            new Attribute("employer", "%s works at %s.", "%s has started a new job at %s.", "Where does %s work?",
                    List.of("Northwind", "Contoso", "Fabrikam", "Tailspin", "Litware", "Adatum", "Proseware",
                            "Woodgrove")),
            new Attribute("pet", "%s's dog is called %s.", "%s has a new dog called %s.", "What is the name of %s's dog?",
                    List.of("Biscuit", "Pepper", "Luna", "Milo", "Rex", "Nala", "Ziggy", "Mochi", "Pixel")),
            new Attribute("diet", "%s eats a %s diet.", "%s has switched to a %s diet.", "What diet does %s follow?",
                    List.of("vegetarian", "vegan", "pescatarian", "keto", "paleo", "gluten-free", "low-carb")),
            new Attribute("partner", "%s's partner is %s.", "%s is now with a new partner, %s.", "Who is %s's partner?",
                    List.of("Priya", "Tomas", "Ingrid", "Kenji", "Amara", "Lucia", "Mateo", "Sofia", "Ravi")),
            new Attribute("car", "%s drives a %s.", "%s has sold the old car and now drives a %s.",
                    "What car does %s drive?", List.of("Volvo", "Toyota", "Skoda", "Fiat", "Tesla", "Renault", "Mazda",
                            "Subaru")),
            new Attribute("sport", "%s plays %s every week.", "%s has taken up %s instead.", "Which sport does %s play?",
                    List.of("tennis", "rugby", "squash", "badminton", "volleyball", "cricket", "golf", "hockey")),
            new Attribute("language", "%s is learning %s.", "%s has moved on to learning %s.",
                    "Which language is %s learning?", List.of("Japanese", "Spanish", "Portuguese", "Korean", "Swahili",
                            "Finnish", "Greek", "Turkish")));

    static final List<String> USERS = List.of("Ann", "Ben", "Cleo", "Dan", "Eva", "Finn", "Gia", "Hugo", "Ida", "Jon",
            "Kai", "Lea", "Max", "Nina", "Otto", "Pia", "Quinn", "Rosa", "Sam", "Tara", "Umar", "Vera", "Walt", "Xena",
            "Yuri", "Zoe", "Abel", "Bea", "Cyril", "Dora", "Emil", "Flora", "Gus", "Hana", "Ivo", "Jade", "Karl",
            "Lina", "Milan", "Noor", "Olaf", "Petra", "Rolf", "Sara", "Theo", "Ursa", "Vince", "Wanda", "Yann", "Zara",
            "Arlo", "Bruna", "Colm", "Dalia", "Egon", "Fay", "Gert", "Hedda", "Igor", "Juno", "Kurt", "Lotte", "Mads",
            "Nell", "Oren", "Paz", "Rhea", "Soren", "Tilde", "Ulla");

    /** Memories about other things: none names a fact's value. */
    static final List<String> OTHER = List.of("%s went to a jazz concert on Friday.", "%s prefers window seats on trains.",
            "%s is reading a long novel about sailing.", "%s asked for a reminder to water the plants.",
            "%s likes strong black coffee in the morning.", "%s collects old postcards.",
            "%s fixed a squeaky door at home last weekend.", "%s keeps a journal of bird sightings.",
            "%s planned a picnic with friends by the river.", "%s finds loud open offices tiring.",
            "%s baked bread for the first time.", "%s wants to visit a planetarium soon.");

    /** What expires: said once, true for a short while. */
    static final String EXPIRING = "%s has a temporary door code for the storage room: %d.";

    private FactUpdates() {
    }

    /**
     * The workload of {@code seed}: {@code users} users (at most {@link #USERS}' size), {@code factsPerUser} facts
     * each (at most {@link #ATTRIBUTES}' size), {@code otherPerUser} other memories each, and one note per user
     * that expires.
     */
    static Workload generate(long seed, int users, int factsPerUser, int otherPerUser) {
        if (users < 1 || users > USERS.size() || factsPerUser < 1 || factsPerUser > ATTRIBUTES.size()
                || otherPerUser < 0 || otherPerUser > OTHER.size()) {
            throw new IllegalArgumentException("1–" + USERS.size() + " users, 1–" + ATTRIBUTES.size()
                    + " facts and 0–" + OTHER.size() + " other memories per user: " + users + ", " + factsPerUser
                    + ", " + otherPerUser);
        }
        Random random = new Random(seed);
        List<Fact> facts = new ArrayList<>();
        List<Memory> memories = new ArrayList<>();
        List<Note> notes = new ArrayList<>();
        for (String user : USERS.subList(0, users)) {
            String userId = user.toLowerCase(Locale.ROOT);
            List<Attribute> attributes = new ArrayList<>(ATTRIBUTES);
            Collections.shuffle(attributes, random);
            for (Attribute attribute : attributes.subList(0, factsPerUser)) {
                Fact fact = fact(random, user, userId, attribute, Means.values()[random.nextInt(Means.values().length)]);
                facts.add(fact);
                memories.addAll(memoriesOf(fact));
            }
            List<String> other = new ArrayList<>(OTHER);
            Collections.shuffle(other, random);
            for (int i = 0; i < otherPerUser; i++) {
                memories.add(new Memory(userId + ".note." + i, userId, String.format(Locale.ROOT, other.get(i), user),
                        time(random, random.nextInt(HISTORY_DAYS)), null, List.of(), null, null, null));
            }
            notes.add(new Note(userId + ".door-code", userId, String.format(Locale.ROOT, EXPIRING, user,
                    1000 + random.nextInt(9000))));
        }
        memories.sort(Comparator.comparing(Memory::ts).thenComparing(Memory::memoryId));
        return new Workload(List.copyOf(facts), List.copyOf(memories), List.copyOf(notes));
    }

    /** A fact with one to three updates on distinct days, each a value it did not have before. */
    private static Fact fact(Random random, String user, String userId, Attribute attribute, Means means) {
        int versions = 2 + random.nextInt(3);
        List<Integer> days = new ArrayList<>();
        while (days.size() < versions) {
            int day = random.nextInt(HISTORY_DAYS);
            if (!days.contains(day)) {
                days.add(day);
            }
        }
        Collections.sort(days);
        List<String> values = new ArrayList<>(attribute.values());
        Collections.shuffle(values, random);
        List<Version> list = new ArrayList<>();
        for (int i = 0; i < versions; i++) {
            list.add(new Version(userId + "." + attribute.key() + "." + i, values.get(i), time(random, days.get(i))));
        }
        return new Fact(userId, user, attribute, means, List.copyOf(list));
    }

    /** A time of day between 08:00 and 20:00 on day {@code day} of the history. */
    private static Instant time(Random random, int day) {
        return HISTORY_START.plus(Duration.ofDays(day)).plus(Duration.ofHours(8)).plusSeconds(random.nextInt(12 * 3600));
    }

    /** The memories that say a fact's versions, each marked as its means says. */
    static List<Memory> memoriesOf(Fact fact) {
        List<Memory> out = new ArrayList<>();
        List<Version> versions = fact.versions();
        for (int i = 0; i < versions.size(); i++) {
            Version v = versions.get(i);
            String text = String.format(Locale.ROOT, i == 0 ? fact.attribute().said() : fact.attribute().changed(),
                    fact.user(), v.value());
            Means means = fact.means();
            out.add(new Memory(v.memoryId(), fact.userId(), text, v.from(),
                    means == Means.KEY ? "user." + fact.attribute().key() : null,
                    means == Means.SUPERSEDES && i > 0 ? List.of(versions.get(i - 1).memoryId()) : List.of(),
                    means == Means.VALIDITY ? v.from() : null,
                    means == Means.VALIDITY && i + 1 < versions.size() ? versions.get(i + 1).from() : null, null));
        }
        return out;
    }
}
