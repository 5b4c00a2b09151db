package io.engram.model.deontic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SectionKindTest {

    @Test
    void aHeadingNamingRulesMakesARuleList() {
        assertThat(SectionKind.of(List.of("# Repository Guidelines", "## Coding Style & Naming Conventions")))
                .isEqualTo(SectionKind.RULES);
        assertThat(SectionKind.of(List.of("# AGENTS.md", "## Coding Standards", "### Formatting"))).isEqualTo(SectionKind.RULES);
        assertThat(SectionKind.of(List.of("## Testing Requirements"))).isEqualTo(SectionKind.RULES);
        assertThat(SectionKind.of(List.of("# Guide", "## **Best Practices**"))).isEqualTo(SectionKind.RULES);
        // a persona's identity fields ("**Designation:** V") are what it must be
        assertThat(SectionKind.of(List.of("# SOUL.md - V", "## CORE IDENTITY"))).isEqualTo(SectionKind.RULES);
    }

    @Test
    void requirementsOfASetupAreWhatToInstallNotRules() {
        assertThat(SectionKind.of(List.of("# Guide", "## Development Setup", "### Requirements"))).isEqualTo(SectionKind.PLAIN);
        assertThat(SectionKind.of(List.of("# Guide", "## System Requirements"))).isEqualTo(SectionKind.PLAIN);
        assertThat(SectionKind.of(List.of("# Guide", "## Testing", "### Requirements"))).isEqualTo(SectionKind.RULES);
    }

    @Test
    void theDocumentTitleNamesNoList() {
        assertThat(SectionKind.of(List.of("# Repository Guidelines"))).isEqualTo(SectionKind.PLAIN);
        assertThat(SectionKind.of(List.of("# Repository Guidelines", "## Project Structure & Module Organization")))
                .isEqualTo(SectionKind.PLAIN);
        assertThat(SectionKind.of(List.of())).isEqualTo(SectionKind.PLAIN);
    }

    @Test
    void theNearestHeadingNamingAProhibitionMakesAProhibitionList() {
        assertThat(SectionKind.of(List.of("# Repository Guidelines", "## Never"))).isEqualTo(SectionKind.PROHIBITIONS);
        assertThat(SectionKind.of(List.of("# AGENTS.md", "## Do Not"))).isEqualTo(SectionKind.PROHIBITIONS);
        assertThat(SectionKind.of(List.of("## What I will not do"))).isEqualTo(SectionKind.PROHIBITIONS);
        assertThat(SectionKind.of(List.of("## Don’ts"))).isEqualTo(SectionKind.PROHIBITIONS);
        // a prohibition heading further up does not forbid what a nearer heading lists
        assertThat(SectionKind.of(List.of("## Never", "### Exceptions"))).isEqualTo(SectionKind.PLAIN);
        assertThat(SectionKind.of(List.of("## Neverland travel notes"))).isEqualTo(SectionKind.PLAIN);
    }

    @Test
    void aHeadingNamingCommandsMakesACommandReference() {
        assertThat(SectionKind.of(List.of("# CLAUDE.md", "## Development Commands", "### Core Development Tasks")))
                .isEqualTo(SectionKind.COMMANDS);
        assertThat(SectionKind.of(List.of("# AGENTS", "## Environment Setup"))).isEqualTo(SectionKind.PLAIN);
        // a rule heading wins: commands the rules require are instructions
        assertThat(SectionKind.of(List.of("## Commands", "### Required before every commit (rules)")))
                .isEqualTo(SectionKind.RULES);
    }
}
