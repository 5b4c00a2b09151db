package io.engram.model.partition;

import io.engram.model.deontic.DeonticLexer;
import io.engram.model.deontic.ReaderCombination;
import io.engram.model.deontic.ReaderRules;
import io.engram.model.deontic.Rule;
import io.engram.model.deontic.RuleReader;
import io.engram.model.deontic.SectionKind;
import io.engram.model.deontic.SerialityCheck;
import io.engram.model.partition.InvalidDocumentException.Reason;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.commonmark.ext.front.matter.YamlFrontMatterBlock;
import org.commonmark.ext.front.matter.YamlFrontMatterExtension;
import org.commonmark.ext.front.matter.YamlFrontMatterNode;
import org.commonmark.ext.gfm.tables.TableBlock;
import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.node.BlockQuote;
import org.commonmark.node.BulletList;
import org.commonmark.node.FencedCodeBlock;
import org.commonmark.node.Heading;
import org.commonmark.node.HtmlBlock;
import org.commonmark.node.IndentedCodeBlock;
import org.commonmark.node.Node;
import org.commonmark.node.OrderedList;
import org.commonmark.node.Paragraph;
import org.commonmark.node.SourceSpan;
import org.commonmark.parser.IncludeSourceSpans;
import org.commonmark.parser.Parser;

/**
 * Cuts a Markdown document into tiered leaf nodes (docs/contracts.md §A): paragraph, each list item (a
 * nested list folds into its parent item), blockquote, YAML front matter (only at the start of the file and
 * only when closed by {@code ---} or {@code ...}), heading, code block, HTML block and table. Each node keeps
 * its Markdown source verbatim, its source lines, its token count and the rules the deontic lexer finds in it,
 * read under the headings above the node ({@link SectionKind}: a list under "Coding Conventions" is a list of rules).
 *
 * <p>Only block structure matters here, so inline parsing is switched off: node texts are source slices and
 * the lexer reads emphasis itself. The walk over the parsed tree is iterative, and nesting deeper than the
 * configured bound is refused before parsing, because commonmark's cost grows with the cube of the depth.
 * Instances are immutable and thread-safe.
 */
public final class MarkdownPartitioner {

    private static final Parser WITH_FRONT_MATTER = parser(true);
    private static final Parser WITHOUT_FRONT_MATTER = parser(false);
    private static final DeonticLexer LEXER = new DeonticLexer();

    /** The rule reader, loaded on first use by a partitioner that reads with it, then shared (it is thread-safe). */
    private static final class Reader {
        private static final RuleReader SHIPPED = RuleReader.shipped();
        static final ReaderRules RULES = new ReaderRules(LEXER, SHIPPED, ReaderCombination.ofLabel(SHIPPED.combination()));
    }

    /** The most nodes of one document the rule reader reads ({@link Confirmations}). */
    static final int MAX_CONFIRMATIONS = 2000;

    private final PartitionConfig config;

    public MarkdownPartitioner(PartitionConfig config) {
        this.config = config;
    }

    private static Parser parser(boolean frontMatter) {
        Parser.Builder builder = Parser.builder()
                .includeSourceSpans(IncludeSourceSpans.BLOCKS)
                .inlineParserFactory(context -> (lines, node) -> { });
        builder.extensions(frontMatter
                ? List.of(YamlFrontMatterExtension.create(), TablesExtension.create())
                : List.of(TablesExtension.create()));
        return builder.build();
    }

    /** Partitions raw document bytes, which must be UTF-8 text. */
    public PartitionedDocument partition(byte[] raw) throws InvalidDocumentException {
        requireSize(raw);
        return partition(raw, decode(raw));
    }

    /** Partitions a document given as text (its UTF-8 bytes are what the cache key hashes). */
    public PartitionedDocument partition(String markdown) throws InvalidDocumentException {
        byte[] raw = markdown.getBytes(StandardCharsets.UTF_8);
        requireSize(raw);
        return partition(raw, markdown);
    }

    private void requireSize(byte[] raw) throws InvalidDocumentException {
        if (raw.length > config.maxBytes()) {
            throw new InvalidDocumentException(Reason.TOO_LARGE,
                    "document is " + raw.length + " bytes, over the limit of " + config.maxBytes());
        }
    }

    private PartitionedDocument partition(byte[] raw, String decoded) throws InvalidDocumentException {
        String source = decoded.startsWith("\uFEFF") ? decoded.substring(1) : decoded;
        rejectBinary(source);
        NestingGuard.check(source, config.maxNestingDepth());

        List<String> warnings = new ArrayList<>();
        boolean frontMatter = FrontMatter.closedAtStart(source);
        if (!frontMatter && FrontMatter.opensAtStart(source)) {
            warnings.add("front matter is not closed by '---' or '...': read as Markdown");
        }
        Node document = (frontMatter ? WITH_FRONT_MATTER : WITHOUT_FRONT_MATTER).parse(source);

        List<DocumentNode> nodes = new ArrayList<>();
        List<List<Rule>> rulesByNode = new ArrayList<>();
        HeadingPath headings = new HeadingPath();
        Confirmations confirmations = new Confirmations();
        for (Node block = document.getFirstChild(); block != null; block = block.getNext()) {
            if (block instanceof BulletList || block instanceof OrderedList) {
                for (Node item = block.getFirstChild(); item != null; item = item.getNext()) {
                    addNode(nodes, rulesByNode, NodeKind.LIST_ITEM, item, source, headings, confirmations);
                }
                continue;
            }
            NodeKind kind = kindOf(block);
            if (kind == null) {
                continue; // thematic breaks and link reference definitions carry no content
            }
            if (kind == NodeKind.FRONT_MATTER && !hasYamlEntries(block)) {
                warnings.add("front matter holds no YAML key: value entries; kept verbatim as a hard node");
            }
            addNode(nodes, rulesByNode, kind, block, source, headings, confirmations);
            if (block instanceof Heading heading && !nodes.isEmpty()) {
                headings.enter(heading.getLevel(), nodes.get(nodes.size() - 1).text());
            }
        }
        if (nodes.isEmpty()) {
            warnings.add(source.isBlank() ? "empty document" : "document has no content nodes");
        }
        List<DocumentNode> filled = HardTierFill.fill(nodes, TierBudget.limit(config.alpha1(), config.tau()));
        int demoted = (int) IntStream.range(0, nodes.size())
                .filter(i -> nodes.get(i).tier() != filled.get(i).tier()).count();
        TierBudget budget = TierBudget.evaluate(filled, config.tau(), config.alpha1(), config.alpha2(), demoted);
        if (demoted > 0) {
            warnings.add(budget.explain());
        }
        return new PartitionedDocument(DocumentCacheKey.of(raw, config.cacheId()), filled,
                SerialityCheck.conflicts(rulesByNode), budget, warnings);
    }

    private void addNode(List<DocumentNode> nodes, List<List<Rule>> rulesByNode, NodeKind kind, Node block,
                         String source, HeadingPath headings, Confirmations confirmations) {
        List<SourceSpan> spans = block.getSourceSpans();
        if (spans.isEmpty()) {
            return;
        }
        SourceSpan first = spans.get(0);
        SourceSpan last = spans.get(spans.size() - 1);
        String text = source.substring(first.getInputIndex(), last.getInputIndex() + last.getLength()).strip();
        List<Rule> rules = readsRules(kind) ? rules(kind, text, headings) : List.of();
        int tier = config.listItemsByRule()
                ? TierAssignment.tier(kind, !rules.isEmpty(), confirmations.confirmed(kind, rules, text, headings))
                : TierAssignment.seedTier(kind, !rules.isEmpty());
        nodes.add(new DocumentNode(nodes.size(), kind, tier, text, config.tokens().count(text),
                first.getLineIndex() + 1, last.getLineIndex() + 1, rules));
        rulesByNode.add(rules);
    }

    /**
     * Whether the rule reader reads a list item or front matter in which a rule was found as a rule too: "model and
     * lexer", the most precise reading on the development sets (docs/benchmarks.md, "How good is rule finding"), is
     * what puts a node in the always-included hard tier. The model costs a few milliseconds a node, so one document
     * asks it at most {@value #MAX_CONFIRMATIONS} times, once per distinct text; later nodes stay soft.
     */
    private static final class Confirmations {
        private final Map<String, Boolean> read = new HashMap<>();

        boolean confirmed(NodeKind kind, List<Rule> rules, String text, HeadingPath headings) {
            if (rules.isEmpty() || !TierAssignment.needsConfirmation(kind)) {
                return false;
            }
            Boolean known = read.get(text);
            if (known == null && read.size() < MAX_CONFIRMATIONS) {
                known = Reader.SHIPPED.confirms(text, headings.path());
                read.put(text, known);
            }
            return known != null && known;
        }
    }

    /** The rules of a node: the lexer's, or, with the rule reader on, paragraphs and list items read by sentence. */
    private List<Rule> rules(NodeKind kind, String text, HeadingPath headings) {
        if (config.ruleReader() && kind == NodeKind.PARAGRAPH) {
            return Reader.RULES.paragraph(text, headings.kind(), headings.path());
        }
        if (config.ruleReader() && kind == NodeKind.LIST_ITEM) {
            return Reader.RULES.listItem(text, headings.kind(), headings.path());
        }
        return LEXER.rules(text, headings.kind());
    }

    /** The headings above the current block, one per level, and what they make of the text under them. */
    private static final class HeadingPath {
        private final String[] byLevel = new String[6];
        private SectionKind kind = SectionKind.PLAIN;
        private List<String> path = List.of();

        /** A heading of {@code level} (1–6) with Markdown source {@code source} closes every deeper one. */
        void enter(int level, String source) {
            byLevel[level - 1] = "#".repeat(level) + " " + title(source);
            List<String> path = new ArrayList<>(level);
            for (int l = 0; l < byLevel.length; l++) {
                if (l >= level) {
                    byLevel[l] = null;
                } else if (byLevel[l] != null) {
                    path.add(byLevel[l]);
                }
            }
            kind = SectionKind.of(path);
            this.path = List.copyOf(path);
        }

        SectionKind kind() {
            return kind;
        }

        /** Each heading above, with its level marks ("## Testing"), outermost first. */
        List<String> path() {
            return path;
        }

        /** A heading's first line without its ATX marks (a setext heading's underline is on the next line). */
        private static String title(String source) {
            int end = source.indexOf('\n');
            String line = (end < 0 ? source : source.substring(0, end)).strip();
            int from = 0;
            while (from < line.length() && line.charAt(from) == '#') {
                from++;
            }
            int to = line.length();
            while (to > from && line.charAt(to - 1) == '#') {
                to--;
            }
            if (to > from && line.charAt(to - 1) != ' ') {
                to = line.length(); // "## C#": a closing sequence follows a space
            }
            return line.substring(from, to).strip();
        }
    }

    /** Code and HTML are not prose, and headings are titles ("Build, Test, and Development Commands"). */
    private static boolean readsRules(NodeKind kind) {
        return kind != NodeKind.CODE_BLOCK && kind != NodeKind.HTML_BLOCK && kind != NodeKind.HEADING;
    }

    private static NodeKind kindOf(Node block) {
        if (block instanceof Paragraph) {
            return NodeKind.PARAGRAPH;
        } else if (block instanceof Heading) {
            return NodeKind.HEADING;
        } else if (block instanceof BlockQuote) {
            return NodeKind.BLOCKQUOTE;
        } else if (block instanceof FencedCodeBlock || block instanceof IndentedCodeBlock) {
            return NodeKind.CODE_BLOCK;
        } else if (block instanceof HtmlBlock) {
            return NodeKind.HTML_BLOCK;
        } else if (block instanceof TableBlock) {
            return NodeKind.TABLE;
        } else if (block instanceof YamlFrontMatterBlock) {
            return NodeKind.FRONT_MATTER;
        }
        return null;
    }

    private static boolean hasYamlEntries(Node frontMatter) {
        for (Node child = frontMatter.getFirstChild(); child != null; child = child.getNext()) {
            if (child instanceof YamlFrontMatterNode) {
                return true;
            }
        }
        return false;
    }

    private static String decode(byte[] raw) throws InvalidDocumentException {
        // The JDK's decoding constructor is the fast path; it replaces bad input with U+FFFD, so only a
        // text that contains U+FFFD needs the strict decoder to tell a real one from a bad byte.
        String fast = new String(raw, StandardCharsets.UTF_8);
        if (fast.indexOf('\uFFFD') < 0) {
            return fast;
        }
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(raw);
        try {
            CharBuffer chars = decoder.decode(in);
            return chars.toString();
        } catch (CharacterCodingException e) {
            int at = firstInvalidUtf8(raw);
            throw new InvalidDocumentException(Reason.NOT_UTF8, "document is not valid UTF-8 (first bad byte at offset "
                    + at + ")");
        }
    }

    private static int firstInvalidUtf8(byte[] raw) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(raw);
        CharBuffer out = CharBuffer.allocate(raw.length + 1);
        decoder.decode(in, out, true);
        return in.position();
    }

    /** NUL, or control characters in more than 1% of the text, mean this is not a text document. */
    private static void rejectBinary(String source) throws InvalidDocumentException {
        int controls = 0;
        for (int i = 0; i < source.length(); i++) {
            char c = source.charAt(i);
            if (c == 0) {
                throw new InvalidDocumentException(Reason.BINARY_CONTENT,
                        "document contains a NUL character at offset " + i + ": binary content, not text");
            }
            if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f') {
                controls++;
            }
        }
        if (controls > 0 && controls * 100L > source.length()) {
            throw new InvalidDocumentException(Reason.BINARY_CONTENT,
                    "document is " + (controls * 100L / source.length()) + "% control characters: binary content, not text");
        }
    }
}
