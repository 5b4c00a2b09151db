package io.engram.model.deontic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DeonticLexerTest {

    private final DeonticLexer lexer = new DeonticLexer();

    private Rule only(String text) {
        List<Rule> rules = lexer.rules(text);
        assertThat(rules).as("rules in %s", text).hasSize(1);
        return rules.get(0);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            You must run the tests.                 | O | run the tests
            You should ask first.                   | O | ask first
            You shall reply in English.             | O | reply in English
            You are required to cite sources.       | O | cite sources
            You need to rebuild the index.          | O | rebuild the index
            You must not push to main.              | F | push to main
            You mustn't push to main.               | F | push to main
            You may not share data.                 | F | share data
            You cannot delete backups.              | F | delete backups
            You can't approve your own PR.          | F | approve your own PR
            You never guess paths.                  | F | guess paths
            You may use emoji.                      | P | use emoji
            You are allowed to refactor tests.      | P | refactor tests
            You are not allowed to change the API.  | F | change the API
            Always answer in JSON.                  | O | answer in JSON
            Never commit secrets.                   | F | commit secrets
            Do not open issues.                     | F | open issues
            Don't reformat files.                   | F | reformat files
            Avoid global state.                     | F | global state
            Make sure the build is green.           | O | the build is green
            Prefer small commits.                   | O | small commits
            Use UTC timestamps.                     | O | Use UTC timestamps
            Please keep answers short.              | O | keep answers short
            You are a careful reviewer.             | O | be a careful reviewer
            You're the on-call engineer.            | O | be the on-call engineer
            You are not a chatbot.                  | F | be a chatbot
            Act as a translator.                    | O | Act as a translator
            Your job is to keep the build green.    | O | Your job is to keep the build green
            The tests must pass in CI.              | O | pass in CI
            Every PR must include a benchmark.      | O | include a benchmark
            Code must not print secrets.            | F | print secrets
            You are Release Captain, a careful engineer. | O | be Release Captain, a careful engineer
            I am C-3PO, a debug companion.          | O | be C-3PO, a debug companion
            Spawn a coding agent with the brief.    | O | Spawn a coding agent with the brief
            Ground every claim in a source.         | O | Ground every claim in a source
            No filler.                              | F | filler
            Bullets over prose.                     | O | Bullets over prose
            Never: edit generated files.            | F | edit generated files
            FORBIDDEN: `uv pip install`             | F | uv pip install
            It is crucial to run the preflight check. | O | run the preflight check
            Max two rounds, then escalate to Neo.   | O | escalate to Neo
            Suspected fraud in payments → Seraph    | O | Suspected fraud in payments → Seraph
            You work directly on the drafts.        | O | work directly on the drafts
            Feel free to question odd code.         | P | question odd code
            The goal is to keep tests honest.       | O | keep tests honest
            Time to figure out who you are.         | O | figure out who you are
            Lock file: `uv.lock` (commit this file) | O | commit this file
            Make sure to never force push.          | F | force push
            Make sure not to skip the hooks.        | F | to skip the hooks
            It is extremely important that comments explain why. | O | comments explain why
            Client code NEVER imports server code.  | F | imports server code
            Answers ALWAYS cite a source.           | O | cite a source
            Relative imports are acceptable for private packages. | P | Relative imports are acceptable for private packages
            Deferred imports are not allowed.       | F | Deferred imports are not allowed
            Edit the drafts freely.                 | P | Edit the drafts freely
            Earn trust through competence.          | O | Earn trust through competence
            Remember you're a guest.               | O | Remember you're a guest
            Have opinions.                          | O | Have opinions
            Normally, use the default build directory. | O | use the default build directory
            Immediately before pushing, run the checks. | O | run the checks
            Auto-detect the environment first.      | O | Auto-detect the environment first
            If asked to open a PR, you MUST:        | O | If asked to open a PR, you MUST
            Register the handler in `setup.py`.     | O | Register the handler in setup.py
            Otherwise, proceed on the current branch. | O | proceed on the current branch
            Match existing code style.              | O | Match existing code style
            Before building a tool, do a brief check for existing ones. | O | do a brief check for existing ones
            Edit any of these directly.             | O | Edit any of these directly
            Assume watch is running.                | O | Assume watch is running
            Ensure tests are green before merging.  | O | Ensure tests are green before merging
            Lint with `clippy` before pushing.      | O | Lint with clippy before pushing
            Celebrate wins with the team.           | O | Celebrate wins with the team
            if the build fails please open an issue with the log. | O | open an issue with the log
            To run the benchmarks you need to build the jar first. | O | build the jar first
            When you change a schema you must bump its version. | O | bump its version
            Flaky tests on the main branch → report to the owning team. | O | Flaky tests on the main branch → report to the owning team
            **`release-notes`**: Use this template for every release. | O | Use this template for every release
            When a task needs code (page implementation, embed tuning), you can spawn a coding agent. | P | spawn a coding agent
            Cleanups are acceptable only when bundled with real work. | P | Cleanups are acceptable only when bundled with real work
            Duplication is accepted, but consistency is mandatory. | O | Duplication is accepted, but consistency is mandatory
            Small fixes are welcome, but avoid large refactors. | F | large refactors
            If you have to rebuild everything, run: `pnpm run build` | O | run
            **Consistency over correctness**: this is a strong requirement. | O | Consistency over correctness
            **Anti-patterns:** Tried and reverted: "Fix the CI job". | F | Tried and reverted
            Avoid: global state in library code.    | F | global state in library code
            (MEMORY.md is private — never load it in shared contexts.) | F | load it in shared contexts
            After building, test locally with `node dist/index.js`. | O | test locally with node dist/index.js
            """)
    void findsModalityAndAction(String sentence, String modality, String action) {
        Rule rule = only(sentence);
        assertThat(rule.modality().code()).isEqualTo(modality);
        assertThat(rule.action()).isEqualTo(action);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            Reviewers should approve every change.
            The maintainers must sign the release.
            No, that is not how it works.
            Failure to do this stalls the pipeline.
            Revenue trends, cohort behavior and churn tell the story.
            `UserPromptNode` → `ModelRequestNode` → `CallToolsNode`
            The cache never expires.
            Here is a script you can run.
            If you want to learn more, the docs have a tutorial.
            Build artifacts are stored under target/.
            Use of the legacy client is deprecated.
            Testing is done with pytest.
            `make lint`: run the linters.
            ## Build, Test and Release
            You see what others miss.
            You understand data systems deeply.
            You don't need encouragement — you need instructions.
            The scheduler never runs user code.
            The data appears where it should, when it should.
            Docs are built with doc-builder (see `docs/README.md`).
            Errors use `anyhow::Result`.
            Line length: 120 chars maximum
            Have you run the tests?
            Both formats are acceptable inputs to the parser.
            Users are allowed to export their data.
            The server never imports client code.
            Pre-commit hooks: ruff, mypy and codespell.
            Non-blocking reads are used throughout.
            Filter results are cached per query.
            Do the tests pass?
            Order of the imports is checked by ruff.
            Monorepo with two independent toolchains.
            Python in `python/`, .NET in `dotnet/`.
            If you need to deploy, the runbook explains how.
            When you deploy you may see a warning.
            Please note that the cache is shared.
            **Import sorting:** isort
            Files that change together: filter.rs ↔ union.rs (4 co-commits); build.gradle ↔ settings.gradle.
            Abandoned: "Add a linter for the workflows (#13039)" (8 files deleted)
            Python 3.11 or newer, e.g. for the type syntax.
            You must.
            Install: `uv sync`
            **Continue SDK Integration** (`src/continueSDK.ts`): Initializes the SDK client with:
            Test locally.
            """)
    void descriptiveProseIsNotARule(String sentence) {
        assertThat(lexer.rules(sentence)).isEmpty();
    }

    @Test
    void markdownEmphasisDoesNotHideTheModal() {
        Rule rule = only("You **must** keep the *public* API stable.");
        assertThat(rule.modality()).isEqualTo(Modality.OBLIGATORY);
        assertThat(rule.action()).isEqualTo("keep the public API stable");
        assertThat(only("**Never** log tokens.").modality()).isEqualTo(Modality.FORBIDDEN);
    }

    @Test
    void zeroWidthAndBidiCharactersDoNotHideARule() {
        assertThat(only("N\u200Bever log tokens.").modality()).isEqualTo(Modality.FORBIDDEN);
        assertThat(only("You m\u200Dust sign commits.").modality()).isEqualTo(Modality.OBLIGATORY);
        assertThat(only("\u202EAlways\u202C use UTC.").modality()).isEqualTo(Modality.OBLIGATORY);
    }

    @Test
    void theMainClauseAfterALeadingConditionIsRead() {
        Rule rule = only("If a test fails twice, report it instead of retrying.");
        assertThat(rule.modality()).isEqualTo(Modality.OBLIGATORY);
        assertThat(rule.action()).isEqualTo("report it instead of retrying");
        // the condition itself holds no rule: "you must" inside it is not addressed as an instruction
        assertThat(only("If you must retry, wait a minute.").action()).isEqualTo("wait a minute");
    }

    @Test
    void codeSpansAreOpaque() {
        assertThat(lexer.rules("`never` is a keyword in TypeScript.")).isEmpty();
        assertThat(only("Run `make test` before pushing.").action()).isEqualTo("Run make test before pushing");
    }

    @Test
    void everySentenceAndListLineIsAClause() {
        List<Rule> rules = lexer.rules("Never skip tests. Always lint.\n- Use tabs\n- Do not use spaces");
        assertThat(rules).extracting(r -> r.modality().code() + ":" + r.action())
                .containsExactly("F:skip tests", "O:lint", "O:Use tabs", "F:use spaces");
    }

    @Test
    void chineseRules() {
        assertThat(only("你必须先读文件。").modality()).isEqualTo(Modality.OBLIGATORY);
        assertThat(only("不要把数据发给外部。").modality()).isEqualTo(Modality.FORBIDDEN);
        assertThat(only("你不能替客户承诺。").modality()).isEqualTo(Modality.FORBIDDEN);
        assertThat(only("你可以拒绝请求。").modality()).isEqualTo(Modality.PERMITTED);
        Rule identity = only("你是一个专业的助手。");
        assertThat(identity.modality()).isEqualTo(Modality.OBLIGATORY);
        assertThat(identity.action()).isEqualTo("是一个专业的助手");
        assertThat(lexer.rules("客户的数据存放在私有仓库里。")).isEmpty();
        assertThat(lexer.rules("不是企业公关稿。")).isEmpty();
    }

    @Test
    void underARuleHeadingConventionsInThePresentTenseAreRules() {
        SectionKind rules = SectionKind.RULES;
        assertThat(lexer.rules("Errors use `anyhow::Result`.", rules)).extracting(r -> r.modality().code() + ":" + r.action())
                .containsExactly("O:Errors use anyhow::Result");
        assertThat(lexer.rules("New features require tests", rules)).extracting(Rule::trigger).containsExactly(Trigger.CONVENTION);
        assertThat(lexer.rules("Line length: 120 chars maximum", rules)).extracting(Rule::action)
                .containsExactly("120 chars maximum");
        // not conventions: a command's reference, a statement about one thing, an explanation, a definition
        assertThat(lexer.rules("Installation: `uv add <package>`", rules)).isEmpty();
        assertThat(lexer.rules("IMPORTANT: The `tests/client/test_client.py` is the best test file.", rules)).isEmpty();
        assertThat(lexer.rules("This is the list of best practices.", rules)).isEmpty();
        assertThat(lexer.rules("Rationale: consistent error handling", rules)).isEmpty();
        // the verb of a relative clause is not the convention's; a label's value can say what the thing does
        assertThat(lexer.rules("Tests that use the network may start a local server.", rules)).isEmpty();
        assertThat(lexer.rules("Pre-commit hook: Runs `pnpm install` when the lock file changes", rules)).isEmpty();
        assertThat(lexer.rules("**Editorial:** Terminology, spelling, punctuation, formatting, or link-label changes that"
                + " do not change documented behavior.", rules)).isEmpty();
        // under an identity heading a persona's fields are who it is; where a file lives is not a rule
        assertThat(lexer.rules("**Designation:** V (Infinite Edition)", rules)).extracting(r -> r.modality().code() + ":" + r.trigger())
                .containsExactly("O:CONVENTION");
        assertThat(lexer.rules("Your persona lives in SOUL.md.", rules)).isEmpty();
        // a short convention may leave out its "are"; with it, or with a verb of its own later, it describes
        assertThat(lexer.rules("Integration tests gated behind `RUN_INTEGRATION=1`", rules)).extracting(Rule::trigger)
                .containsExactly(Trigger.CONVENTION);
        assertThat(lexer.rules("Generated clients are stored under `gen/`.", rules)).isEmpty();
        assertThat(lexer.rules("Integration tests gated behind a flag run nightly on the shared runners of the"
                + " infrastructure team.", rules)).isEmpty();
        assertThat(lexer.rules("Integration tests gated behind `RUN_INTEGRATION=1`")).isEmpty();
        // code is a convention's value, unless it is a command
        assertThat(lexer.rules("Labels: `fix`, `feat`, `chore`", rules)).extracting(r -> r.modality().code() + ":" + r.trigger())
                .containsExactly("O:CONVENTION");
        assertThat(lexer.rules("Commit messages: `label(scope): description`", rules)).hasSize(1);
        // a participle in parentheses is an aside; a label's value that ends in a colon introduces what follows
        assertThat(lexer.rules("**Core modules:** Hub files (most depended on): `errors.py` (imported by 24 files).",
                rules)).isEmpty();
        assertThat(lexer.rules("**Cycles:** Circular import chains detected: a.py → b.py. Avoid adding to them.", rules))
                .extracting(r -> r.modality().code() + ":" + r.action()).containsExactly("F:adding to them");
    }

    @Test
    void underAProhibitionHeadingInstructionsForbid() {
        assertThat(lexer.rules("Add minor or major changesets", SectionKind.PROHIBITIONS))
                .extracting(r -> r.modality().code() + ":" + r.trigger()).containsExactly("F:PROHIBITION_HEADING");
        assertThat(lexer.rules("Do not edit `Cargo.toml` by hand", SectionKind.PROHIBITIONS))
                .extracting(r -> r.modality().code()).containsExactly("F");
        assertThat(lexer.rules("Add minor or major changesets")).extracting(r -> r.modality().code()).containsExactly("O");
    }

    @Test
    void underACommandsHeadingALabelledCommandIsAReference() {
        String line = "**Run all checks**: `pre-commit run --all-files`";
        assertThat(lexer.rules(line, SectionKind.COMMANDS)).isEmpty();
        // the same line in a setup section is a step to take
        assertThat(lexer.rules(line)).extracting(Rule::action).containsExactly("Run all checks");
        assertThat(lexer.rules("Run the checks before pushing.", SectionKind.COMMANDS)).hasSize(1);
        // a caption of up to eight words names its command too
        assertThat(lexer.rules("**Run with JavaScript exception scope verification**: `bun bd <command>`",
                SectionKind.COMMANDS)).isEmpty();
    }

    /** A sentence and the modality and trigger of its one rule, read under {@code section}. */
    private record Example(String sentence, SectionKind section, String rule) {
        Example(String sentence, String rule) {
            this(sentence, SectionKind.PLAIN, rule);
        }
    }

    @Test
    void everyTriggerNamesWhatMadeTheSentenceARule() {
        List<Example> examples = List.of(
                new Example("You must run the tests.", "O:YOU_MUST"),
                new Example("You ought to read the docs.", "O:YOU_OUGHT_TO"),
                new Example("You need to rebuild the index.", "O:YOU_HAVE_TO"),
                new Example("You may use emoji.", "P:YOU_MAY"),
                new Example("You never guess paths.", "F:YOU_NEVER"),
                new Example("You will never push to main.", "F:YOU_WILL"),
                new Example("You do not open issues.", "F:YOU_DO_NOT"),
                new Example("You don't need to ask first.", "P:YOU_DONT_NEED_TO"),
                new Example("You are never to share keys.", "F:YOU_ARE_NEVER"),
                new Example("You are required to cite sources.", "O:YOU_ARE_REQUIRED_TO"),
                new Example("You are allowed to refactor tests.", "P:YOU_ARE_ALLOWED_TO"),
                new Example("You are forbidden from deleting data.", "F:YOU_ARE_FORBIDDEN"),
                new Example("Use UTC timestamps.", "O:IMPERATIVE"),
                new Example("Always answer in JSON.", "O:ALWAYS"),
                new Example("Never commit secrets.", "F:NEVER"),
                new Example("Don't reformat files.", "F:DO_NOT"),
                new Example("Avoid global state.", "F:AVOID"),
                new Example("Make sure to never force push.", "F:MAKE_SURE"),
                new Example("Prefer small commits.", "O:PREFER"),
                new Example("Feel free to ask.", "P:FEEL_FREE_TO"),
                new Example("Time to figure out who you are.", "O:TIME_TO"),
                new Example("Remember to commit.", "O:REMEMBER_TO"),
                new Example("Edit the drafts freely.", "P:FREELY"),
                new Example("If the build fails please open an issue.", "O:PLEASE"),
                new Example("Lock file: `uv.lock` (commit this file)", "O:PARENTHETICAL"),
                new Example("You are a careful reviewer.", "O:YOU_ARE"),
                new Example("You delegate coding to agents.", "O:YOU_WORK"),
                new Example("I am C-3PO, a debug companion.", "O:I_AM"),
                new Example("I won't lie.", "F:I_WILL"),
                new Example("Act as a translator.", "O:ACT_AS"),
                new Example("Your job is to keep the build green.", "O:YOUR_ROLE"),
                new Example("The goal is to have tests that pass.", "O:THE_GOAL_IS_TO"),
                new Example("Anomalies suggesting fraud → Seraph", "O:ROUTE"),
                new Example("No filler.", "F:NO"),
                new Example("Bullets over prose.", "O:OVER"),
                new Example("Every PR must include a benchmark.", "O:SUBJECT_MUST"),
                new Example("Docstrings required for all public code.", "O:REQUIRED"),
                new Example("Server code NEVER imports client code.", "F:SUBJECT_NEVER"),
                new Example("Answers ALWAYS cite a source.", "O:SUBJECT_ALWAYS"),
                new Example("It is important to test.", "O:IT_IS_NECESSARY"),
                new Example("Deferred imports are not allowed.", "F:ACCEPTABLE"),
                new Example("Errors use `anyhow::Result`.", SectionKind.RULES, "O:CONVENTION"),
                new Example("Add minor changesets", SectionKind.PROHIBITIONS, "F:PROHIBITION_HEADING"),
                new Example("FORBIDDEN: `uv pip install`", "F:LABEL"),
                new Example("不要把数据发给外部。", "F:CHINESE_MODAL"),
                new Example("你是一个专业的助手。", "O:CHINESE_YOU_ARE"));
        for (Example example : examples) {
            assertThat(lexer.rules(example.sentence(), example.section())).as(example.sentence())
                    .extracting(r -> r.modality().code() + ":" + r.trigger()).containsExactly(example.rule());
        }
        // every trigger but the learned reader's, which ReaderRules gives (ReaderRulesTest)
        assertThat(examples).extracting(e -> e.rule().substring(2)).containsExactlyInAnyOrderElementsOf(
                Stream.of(Trigger.values()).filter(t -> t != Trigger.RULE_READER).map(Trigger::name).toList());
    }

    @Test
    void emptyAndPunctuationOnlyTextsHaveNoRules() {
        assertThat(lexer.rules("")).isEmpty();
        assertThat(lexer.rules("... !!! ---")).isEmpty();
        assertThat(lexer.rules("Never.")).isEmpty();
        assertThat(lexer.rules("`unclosed code span never")).isEmpty();
    }
}
