package io.engram.model.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ContentOverlapTest {

    @Test
    void aTurnQuotedInsideASummaryIsWhollyContainedWhateverTheSummarysLength() {
        ContentOverlap said = new ContentOverlap();
        said.add("We are migrating the billing service to Python 3.12. Our CI runs on GitHub Actions.");
        assertThat(said.containment("we are migrating the BILLING service to python 3.12!")).isEqualTo(1.0);
    }

    @Test
    void containmentIsTheShareOfTheTextsWordPairsAlreadySaid() {
        ContentOverlap said = new ContentOverlap();
        said.add("the cat sleeps");
        // pairs of "the cat sleeps all day": the cat, cat sleeps, sleeps all, all day -> 2 of 4 said
        assertThat(said.containment("the cat sleeps all day")).isCloseTo(0.5, within(1e-12));
        assertThat(said.containment("dogs bark loudly")).isZero();
    }

    @Test
    void aOneWordTextIsComparedByItsWordAndATextWithoutWordsIsNeverContained() {
        ContentOverlap said = new ContentOverlap();
        said.add("Deploy");
        assertThat(said.containment("deploy.")).isEqualTo(1.0);
        assertThat(said.containment("--- ...")).isZero();
        assertThat(new ContentOverlap().containment("anything at all")).isZero();
    }
}
