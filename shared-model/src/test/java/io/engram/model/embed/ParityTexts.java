package io.engram.model.embed;

import java.util.ArrayList;
import java.util.List;

/** Fifty varied texts: short, long, unicode, CJK, emoji, code, markup. */
final class ParityTexts {

    private ParityTexts() {
    }

    static List<String> all() {
        List<String> texts = new ArrayList<>(List.of(
                "Hello world",
                "What did Caroline do last weekend?",
                "The deploy key lives in the vault, not in the repository.",
                "Always answer in JSON.",
                "I went hiking with my dog on Saturday and we saw a deer near the lake.",
                "Café, naïve, résumé, über, São Paulo, Zürich",
                "Привет, как дела? Сегодня хорошая погода.",
                "مرحبا بكم في المشروع، نتمنى لكم يوما سعيدا",
                "שלום עולם, מה שלומך היום?",
                "你不是聊天机器人。你是一个正在成形的专业智能体。",
                "東京は日本の首都です。桜がとても綺麗でした。",
                "한국어 문장도 잘 처리되어야 합니다.",
                "Emoji test 😀🎉🚀 with flags 🇫🇷🇯🇵 and families 👨‍👩‍👧",
                "public static void main(String[] args) { System.out.println(\"hi\"); }",
                "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)",
                "{\"tenant_id\": \"acme\", \"turn_id\": \"t-42\", \"text\": \"hello\"}",
                "SELECT tenant_id, avg(mean_recall) FROM cycle_metrics GROUP BY tenant_id;",
                "# Heading\n\n- item one\n- item **two**\n\n> quoted",
                "https://example.org/path?query=1&other=two#fragment",
                "3.14159 2.71828 1.41421 42 1e-9 0xFF",
                "   leading and trailing spaces   ",
                "tabs\tand\nnewlines\r\nmixed",
                "ALL CAPS SENTENCE ABOUT NOTHING IN PARTICULAR",
                "a",
                "?",
                "The quick brown fox jumps over the lazy dog.",
                "Melanie painted a lake sunrise last year and said it was her favourite piece.",
                "When is the support group meeting? It moved to Thursday evenings.",
                "Rust's borrow checker rejects aliasing mutable references at compile time.",
                "Flink checkpoints keyed state with barriers that flow with the records."));
        StringBuilder medium = new StringBuilder();
        for (int i = 0; texts.size() < 44; i++) {
            medium.append("Sentence ").append(i).append(" talks about memory compaction, recall and budgets. ");
            texts.add(medium.toString());
        }
        texts.add("word ".repeat(60).strip());
        texts.add("Long text: " + "the agent keeps a recent raw tail and compacts older turns into summaries. ".repeat(12));
        texts.add("混合 mixed 言語 text with 한국어 and English and emoji 🤖 in one line");
        texts.add("Ünïcödé ẞ ŉ ǅ ﬁ ligatures and compatibility characters ①②③");
        texts.add("x".repeat(300));
        texts.add(("line of code();\n").repeat(20));
        return texts;
    }
}
