package io.engram.model.deontic;

/**
 * What made a sentence a rule: the phrase one of the lexer's readings matched (docs/algorithms.md, "Deontic
 * lexer"). Descriptive only: the rule's {@link Modality} says what it demands, its action what of.
 */
public enum Trigger {
    /** "You must / should / shall …", with "not" or "mustn't" it forbids. */
    YOU_MUST,
    /** "You ought to …". */
    YOU_OUGHT_TO,
    /** "You have to / need to …". */
    YOU_HAVE_TO,
    /** "You may / can …" opening a clause permits; "you may not / can not / cannot / can't …" forbids. */
    YOU_MAY,
    /** "You never …". */
    YOU_NEVER,
    /** "You will …", "you will never / always …". */
    YOU_WILL,
    /** "You do not / don't …". */
    YOU_DO_NOT,
    /** "You don't need to …" permits leaving it out. */
    YOU_DONT_NEED_TO,
    /** "You are never …". */
    YOU_ARE_NEVER,
    /** "You are required / expected / supposed … to …"; "you are not required to …" permits. */
    YOU_ARE_REQUIRED_TO,
    /** "You are allowed / permitted / free / welcome / able to …"; with "not" it forbids. */
    YOU_ARE_ALLOWED_TO,
    /** "You are forbidden / prohibited / banned (from) …". */
    YOU_ARE_FORBIDDEN,

    /** A base-form verb opening a clause: "Use UTC timestamps", "Spawn a coding agent", "Be concise". */
    IMPERATIVE,
    /** "Always …". */
    ALWAYS,
    /** "Never …". */
    NEVER,
    /** "Do not …", "Don't …". */
    DO_NOT,
    /** "Avoid …". */
    AVOID,
    /** "Make sure …"; "make sure not to …", "make sure you don't …" forbid. */
    MAKE_SURE,
    /** "Prefer …". */
    PREFER,
    /** "Feel free to …" permits. */
    FEEL_FREE_TO,
    /** "Time to …". */
    TIME_TO,
    /** "Remember to …". */
    REMEMBER_TO,
    /** An imperative done "freely" permits: "Edit the drafts freely". */
    FREELY,
    /** "please" before a verb anywhere in a clause: "… please open an issue". */
    PLEASE,
    /** An instruction in parentheses: "`uv.lock` (commit this file)". */
    PARENTHETICAL,

    /** "You are a / the / Name …" (identity; "you are not a …" forbids it). */
    YOU_ARE,
    /** "You work / delegate / assist …": a persona's way of working. */
    YOU_WORK,
    /** "I am C-3PO, …". */
    I_AM,
    /** "I will / I'll …"; "I will never …", "I won't …" forbid. */
    I_WILL,
    /** "Act as …". */
    ACT_AS,
    /** "Your role / job / task … is …". */
    YOUR_ROLE,
    /** "The goal / task / job … is to …". */
    THE_GOAL_IS_TO,
    /** An escalation line: "Anomalies suggesting fraud → Seraph". */
    ROUTE,

    /** "No filler.": a whole short sentence opening with "No". */
    NO,
    /** "Bullets over prose.", "Function before aesthetics.". */
    OVER,

    /** A modal after another subject: "Every PR must include a benchmark", "Code mustn't print secrets". */
    SUBJECT_MUST,
    /** "Type hints required for all code", "consistency is mandatory". */
    REQUIRED,
    /** A capitalized NEVER after a subject: "Server code NEVER imports client code". */
    SUBJECT_NEVER,
    /** A capitalized ALWAYS after a subject: "Answers ALWAYS cite a source". */
    SUBJECT_ALWAYS,
    /** "It is important / crucial / recommended … to / that …". */
    IT_IS_NECESSARY,
    /** "Relative imports are acceptable for …" permits; "Deferred imports are not allowed" forbids. */
    ACCEPTABLE,

    /** Under a rule heading, a present-tense convention: "Errors use `anyhow::Result`", "Line length: 120". */
    CONVENTION,
    /** Under a prohibition heading , an imperative forbids. */
    PROHIBITION_HEADING,
    /** A label of a modality before a colon: "FORBIDDEN: `uv pip install`", "Never: edit generated files". */
    LABEL,

    /** A Chinese modal or clause-opening instruction: "你必须", "不要", "务必". */
    CHINESE_MODAL,
    /** "你是 …" (identity; "你不是 …" forbids it). */
    CHINESE_YOU_ARE,

    /** The learned rule reader called the sentence a rule where no reading of the lexer found one ({@link RuleReader}). */
    RULE_READER;

    /** The name of the reading that produces this trigger, as docs/algorithms.md lists them. */
    public String reading() {
        return switch (this) {
            case YOU_MUST, YOU_OUGHT_TO, YOU_HAVE_TO, YOU_MAY, YOU_NEVER, YOU_WILL, YOU_DO_NOT, YOU_DONT_NEED_TO,
                    YOU_ARE_NEVER, YOU_ARE_REQUIRED_TO, YOU_ARE_ALLOWED_TO, YOU_ARE_FORBIDDEN -> "second-person modal";
            case IMPERATIVE, ALWAYS, NEVER, DO_NOT, AVOID, MAKE_SURE, PREFER, FEEL_FREE_TO, TIME_TO, REMEMBER_TO,
                    FREELY -> "imperative";
            case PLEASE -> "please";
            case PARENTHETICAL -> "parenthetical";
            case YOU_ARE, YOU_WORK, I_AM, I_WILL, ACT_AS, YOUR_ROLE, THE_GOAL_IS_TO -> "persona";
            case ROUTE -> "routing";
            case NO, OVER -> "terse norm";
            case SUBJECT_MUST, REQUIRED, SUBJECT_NEVER, SUBJECT_ALWAYS, IT_IS_NECESSARY, ACCEPTABLE ->
                    "modal of the agent's work";
            case CONVENTION -> "convention";
            case PROHIBITION_HEADING -> "prohibition list";
            case LABEL -> "labelled rule";
            case CHINESE_MODAL, CHINESE_YOU_ARE -> "Chinese";
            case RULE_READER -> "rule reader";
        };
    }
}
