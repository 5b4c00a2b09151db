package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/architecture.md against the code: every class it names in a code span is declared in the repository's
 * sources (in the package it names, when it names one, and with the member or nested type it names), or is a class
 * of the JDK or of another project that loads here; the modules it describes are the parent POM's.
 */
class DocsMatchCodeTest {

    private static final Path ROOT = ClusterCommand.root();
    private static final Path ARCHITECTURE = ROOT.resolve("docs/architecture.md");
    /** Other projects' classes the document names by their simple name, with the class each one is. */
    private static final Map<String, String> OTHER_PROJECTS = Map.of(
            "KafkaRaftServer", "kafka.server.KafkaRaftServer",
            "StorageTool", "kafka.tools.StorageTool",
            "PainlessPlugin", "org.opensearch.painless.PainlessPlugin");
    /** Names in code spans that are no class: Kubernetes kinds the deploy/ manifests use. */
    private static final Set<String> KUBERNETES_KINDS = Set.of("FlinkDeployment");
    private static final Pattern SPAN = Pattern.compile("`([^`\\n]+)`");
    private static final Pattern BRACED = Pattern.compile("([\\w.]*)\\.\\{([^}]*)}");
    private static final Pattern QUALIFIED = Pattern.compile("[A-Za-z_]\\w*(?:\\.[A-Za-z_]\\w*)*");
    private static final Pattern CAMEL = Pattern.compile("[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*");
    private static final Pattern DECLARED = Pattern.compile("\\b(?:class|interface|enum|record)\\s+([A-Z]\\w*)");
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);

    /** A Java source: its package, the types it declares, its code without comments and literals. */
    private record Source(String pkg, Set<String> types, String code) {
    }

    @Test
    void everyClassTheArchitectureNamesExists() throws Exception {
        List<Source> sources = sources();
        List<String> cited = citedNames(withoutCodeBlocks(Files.readString(ARCHITECTURE)));
        List<String> unknown = cited.stream().filter(name -> !exists(name, sources)).distinct().toList();
        assertThat(unknown).as("names in docs/architecture.md that the code does not declare").isEmpty();
        assertThat(cited).contains("EngramPipeline.build", "StoreWriterSettings", "retrieval.HybridRetriever");
        assertThat(exists("serde.ImmutableSerializer", sources)).as("a class the document once named").isFalse();
        assertThat(exists("retrieval.LayoutSerializer", sources)).as("a class in another package").isFalse();
        assertThat(exists("EngramPipeline.noSuchMember", sources)).isFalse();
        assertThat(exists("StoreChange.NoSuchKind", sources)).isFalse();
        assertThat(OTHER_PROJECTS.values()).allMatch(DocsMatchCodeTest::loads);
        for (String kind : KUBERNETES_KINDS) {
            assertThat(Files.readString(ROOT.resolve("deploy/flink-deployment.yaml"))).contains("kind: " + kind);
        }
    }

    @Test
    void theModulesTheArchitectureDescribesAreThePomsModules() throws Exception {
        Set<String> poms = pomModules();
        String doc = Files.readString(ARCHITECTURE);
        String modulesSection = doc.substring(doc.indexOf("## Modules"), doc.indexOf("### Why a separate"));
        Set<String> described = matches(Pattern.compile("\\*\\*`([\\w-]+)/`\\*\\*"), modulesSection);
        assertThat(described).as("the modules section's headings").isEqualTo(poms);
        String dependencies = modulesSection.lines().skip(2).takeWhile(l -> !l.isBlank()).collect(Collectors.joining(" "));
        assertThat(matches(Pattern.compile("`([\\w-]+)`"), dependencies)).as("the dependency line").isEqualTo(poms);
        String packages = doc.substring(doc.indexOf("## Packages"), doc.indexOf("## The pipeline"));
        Set<String> tabled = matches(Pattern.compile("(?m)^\\| `([\\w-]+)`"), packages);
        assertThat(poms).as("the packages table's modules").containsAll(tabled);
        assertThat(tabled).contains("shared-model", "jobs", "store", "service");
    }

    /** The architecture's line on dependencies, which {@link #STATED_DEPENDENCIES} spells out module by module. */
    private static final String STATED = "`shared-model` and `client` (neither uses the other) ← `store` ← `jobs`"
            + " (with `schema`) and `service` (neither reaches the other) ← `launcher` ← `bench`; `stack` (with"
            + " `schema`) and `cluster` serve the launcher and the tests";
    /** What each module uses at compile time, as {@link #STATED} says. */
    private static final Map<String, Set<String>> STATED_DEPENDENCIES = Map.of(
            "shared-model", Set.of(), "client", Set.of(), "schema", Set.of(), "cluster", Set.of(),
            "stack", Set.of("schema"),
            "store", Set.of("shared-model", "client"),
            "jobs", Set.of("shared-model", "client", "schema", "store"),
            "service", Set.of("shared-model", "client", "store"),
            "launcher", Set.of("shared-model", "client", "stack", "jobs", "service", "cluster"),
            "bench", Set.of("shared-model", "launcher"));

    @Test
    void theModulesDependOnWhatTheArchitectureStates() throws Exception {
        Pattern dependency = Pattern.compile("(?s)<dependency>(.*?)</dependency>");
        Map<String, Set<String>> used = new HashMap<>();
        for (String module : pomModules()) {
            String pom = Files.readString(ROOT.resolve(module).resolve("pom.xml"))
                    .replaceAll("(?s)<dependencyManagement>.*?</dependencyManagement>", "");
            Set<String> engram = new TreeSet<>();
            Matcher d = dependency.matcher(pom);
            while (d.find()) {
                Matcher artifact = Pattern.compile("<artifactId>engram-([\\w-]+)</artifactId>").matcher(d.group(1));
                if (artifact.find() && !d.group(1).contains("<scope>test</scope>")) {
                    engram.add(artifact.group(1));
                }
            }
            used.put(module, engram);
        }
        assertThat(used).isEqualTo(STATED_DEPENDENCIES);
        assertThat(Files.readString(ARCHITECTURE).replaceAll("\\s+", " ")).contains(STATED);
    }

    @Test
    void everyBenchmarkSectionTheDocsCiteOrLinkExists() throws Exception {
        Map<String, List<String>> headings = Map.of("benchmarks.md", headings("docs/benchmarks.md"),
                "benchmarks-history.md", headings("docs/benchmarks-history.md"));
        Pattern cited = Pattern.compile("docs/(benchmarks(?:-history)?\\.md),? \\(?\"([^\"]+)\"");
        Pattern linked = Pattern.compile("\\]\\((?:docs/)?(benchmarks(?:-history)?\\.md)?#([\\w-]+)\\)");
        List<String> missing = new ArrayList<>();
        List<Path> docs = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
            files.filter(f -> f.toString().endsWith(".md")).forEach(docs::add);
        }
        int links = 0;
        for (Path doc : docs) {
            String text = Files.readString(doc).replaceAll("\\s+", " ");
            Matcher c = cited.matcher(text);
            while (c.find()) {
                String title = c.group(2);
                if (headings.get(c.group(1)).stream().noneMatch(h -> h.startsWith(title))) {
                    missing.add(doc.getFileName() + " cites " + c.group(1) + ", \"" + title + "\"");
                }
            }
            Matcher l = linked.matcher(text);
            while (l.find()) {
                String target = l.group(1) != null ? l.group(1) : doc.getFileName().toString();
                if (headings.containsKey(target)) {
                    links++;
                    if (headings.get(target).stream().map(DocsMatchCodeTest::anchor).noneMatch(l.group(2)::equals)) {
                        missing.add(doc.getFileName() + " links " + target + "#" + l.group(2));
                    }
                }
            }
        }
        assertThat(missing).isEmpty();
        assertThat(links).as("the benchmarks' table of answers links its sections").isGreaterThan(15);
    }

    private static List<String> headings(String doc) throws IOException {
        return Files.readAllLines(ROOT.resolve(doc)).stream().filter(l -> l.startsWith("#"))
                .map(l -> l.replaceFirst("^#+\\s*", "").strip()).toList();
    }

    /** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
    static String anchor(String heading) {
        return heading.toLowerCase(Locale.ROOT).replaceAll("[^\\w\\- ]", "").replace(' ', '-');
    }

    /** Each class, nested class or member a code span names, qualified as far as the span qualifies it. */
    static List<String> citedNames(String markdown) {
        List<String> names = new ArrayList<>();
        Matcher span = SPAN.matcher(markdown);
        while (span.find()) {
            Matcher braced = BRACED.matcher(span.group(1));
            StringBuilder expanded = new StringBuilder();
            while (braced.find()) {
                String prefix = braced.group(1);
                braced.appendReplacement(expanded, Stream.of(braced.group(2).split(","))
                        .map(n -> prefix + "." + n.strip()).collect(Collectors.joining(" ")));
            }
            braced.appendTail(expanded);
            Matcher name = QUALIFIED.matcher(expanded);
            while (name.find()) {
                if (Stream.of(name.group().split("\\.")).anyMatch(s -> CAMEL.matcher(s).matches())) {
                    names.add(name.group());
                }
            }
        }
        return names;
    }

    /**
     * Whether the sources declare {@code name}: lower-case segments before the first class are the end of its
     * package; each further capitalised segment a type declared in the same file; a lower-case one after them a
     * member that file mentions.
     */
    private static boolean exists(String name, List<Source> sources) {
        String[] segments = name.split("\\.");
        int first = firstClass(segments);
        String pkg = String.join(".", List.of(segments).subList(0, first));
        String type = segments[first];
        if (KUBERNETES_KINDS.contains(name) || pkg.isEmpty() && OTHER_PROJECTS.containsKey(type)
                || pkg.contains(".") && loads(pkg + "." + type)) {
            return true;
        }
        return sources.stream().filter(s -> s.types().contains(type))
                .filter(s -> pkg.isEmpty() || s.pkg().equals(pkg) || s.pkg().endsWith("." + pkg))
                .anyMatch(s -> List.of(segments).subList(first + 1, segments.length).stream().allMatch(rest ->
                        CAMEL.matcher(rest).matches() ? s.types().contains(rest)
                                : Pattern.compile("\\b" + rest + "\\b").matcher(s.code()).find()));
    }

    /** Whether {@code className}, named in full, is on this test's class path (the JDK's or another project's). */
    private static boolean loads(String className) {
        try {
            Class.forName(className, false, DocsMatchCodeTest.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static int firstClass(String[] segments) {
        int first = 0;
        while (!CAMEL.matcher(segments[first]).matches()) {
            first++;
        }
        return first;
    }

    private static String withoutCodeBlocks(String markdown) {
        return markdown.replaceAll("(?s)```.*?```", "");
    }

    private static Set<String> matches(Pattern pattern, String text) {
        Set<String> found = new LinkedHashSet<>();
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }

    private static Set<String> pomModules() throws IOException {
        return matches(Pattern.compile("<module>([\\w-]+)</module>"), Files.readString(ROOT.resolve("pom.xml")));
    }

    private static List<Source> sources() throws IOException {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> !f.toString().contains("/target/") && !f.toString().contains("/node_modules/"))
                    .map(DocsMatchCodeTest::source).toList();
        }
    }

    private static Source source(Path file) {
        try {
            String code = JavaMethods.blanked(Files.readString(file));
            Matcher pkg = PACKAGE.matcher(code);
            return new Source(pkg.find() ? pkg.group(1) : "", matches(DECLARED, code), code);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
