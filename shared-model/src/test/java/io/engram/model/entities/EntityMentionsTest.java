package io.engram.model.entities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class EntityMentionsTest {

    @Test
    void namesPeoplePlacesAndOrganisationsLowerCased() {
        assertEquals(List.of("caroline", "sweden"),
                EntityMentions.in("Hey Caroline! I moved here from Sweden four years ago."));
        assertEquals(List.of("new york", "google"),
                EntityMentions.in("My sister lives in New York and works at Google."));
    }

    @Test
    void aSpeakerLabelIsWhoSpeaksNotAMention() {
        assertEquals(List.of("paris"), EntityMentions.in("Melanie: we spent a week in Paris last summer."));
    }

    @Test
    void aSentencesFirstWordIsANameOnlyAsTheSubjectOfAVerbOrWhereANameGoesOn() {
        assertEquals(List.of(), EntityMentions.in("Yesterday I went to a support group. Thanks for asking!"));
        assertEquals(List.of("nate"), EntityMentions.in("Thanks, Nate! Writing helps me create wild worlds."));
        assertEquals(List.of(), EntityMentions.in("Glad you made it. Congrats on the win! Cool! Way to go."));
        assertEquals(List.of("anna", "google"), EntityMentions.in("Anna starts at Google."));
        assertEquals(List.of("anna", "oslo"), EntityMentions.in("Anna lives in Oslo."));
        assertEquals(List.of("nate"), EntityMentions.in("Thanks Nate! That was kind."));
        assertEquals(List.of("priya", "lisbon"), EntityMentions.in("Priya moved to Lisbon (run e9e0d5b9)."),
                "an id is no name, whatever its tag");
        assertEquals(List.of("new york"), EntityMentions.in("New York was loud."));
    }

    @Test
    void eachNameOnceInOrderOfFirstMentionAndAtMostSixteen() {
        assertEquals(List.of("ann", "bob"), EntityMentions.in("Ann met Bob. Then Bob called Ann again."));
        String many = String.join(", ", List.of("Alice", "Bruno", "Carla", "Dmitri", "Elena", "Farid", "Greta", "Hiro",
                "Ines", "Jonas", "Kemal", "Lena", "Marco", "Nadia", "Oskar", "Priya", "Quentin", "Rosa"));
        List<String> names = EntityMentions.in("I invited " + many + " to the party.");
        assertEquals(EntityMentions.MAX_PER_TEXT, names.size());
        assertEquals("alice", names.get(0));
    }

    @Test
    void anAcronymOrACamelCasedWordIsOneWord() {
        // the shipped tokenizer splits these at a character ("sd k", "agent planner"); whole words name them
        assertEquals(List.of("python sdk", "langgraph rest api"),
                EntityMentions.in("Use the Python SDK to call the LangGraph REST API."));
        assertEquals(List.of("crew", "agentplanner"), EntityMentions.in("A Crew can enable AgentPlanner for its tasks."));
    }

    @Test
    void aTextNamingNothingHasNoMentions() {
        assertEquals(List.of(), EntityMentions.in(""));
        assertEquals(List.of(), EntityMentions.in("   "));
        assertEquals(List.of(), EntityMentions.in("it was so powerful and i felt accepted."));
    }

    @Test
    void threadsTagWithTheirOwnTaggersAndAgree() throws Exception {
        String text = "Last night Nate beat Joanna at Valorant in Chicago.";
        List<String> expected = EntityMentions.in(text);
        assertTrue(expected.containsAll(List.of("nate", "joanna", "chicago")), expected.toString());
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<List<String>>> runs = IntStream.range(0, 64).mapToObj(i -> pool.submit(() -> EntityMentions.in(text)))
                    .toList();
            for (Future<List<String>> run : runs) {
                assertEquals(expected, run.get());
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
