package org.slotbook.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.slotbook.core.tck.MarkdownPages;

/** Keeps the README's quick start (getting started, step 3) identical to the code the build compiles, and runs it. */
class ReadmeTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void readmeQuickStartIsTheCompiledQuickStart() throws IOException {
        String section = MarkdownPages.section("README.md", "### 3. Schedule a slot and hold a seat");
        String snippet = normalize(MarkdownPages.firstCodeBlock(section, "java").lines().collect(Collectors.toList()));

        List<String> source = Files.readAllLines(
                ROOT.resolve("booking-examples/src/main/java/org/slotbook/examples/QuickStart.java"));
        int from = indexOfContaining(source, "--- quick start (README) ---") + 1;
        int to = indexOfContaining(source, "--- end of quick start ---");
        String code = normalize(source.subList(from, to));

        assertThat(snippet).as("README quick start vs QuickStart.java").isEqualTo(code);
        assertThat(snippet.lines().count()).as("quick start length").isBetween(10L, 30L);
    }

    @Test
    void quickStartRunsAndEveryStepBehaves() {
        assertThat(printedBy(() -> QuickStart.main(new String[0]))).contains("Every step behaved.");
    }

    /** What {@code main} prints (echoed to the test's output as well). */
    static String printedBy(Runnable main) {
        PrintStream original = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            main.run();
        } finally {
            System.setOut(original);
        }
        String printed = out.toString(StandardCharsets.UTF_8);
        original.print(printed);
        return printed;
    }

    static int indexOfContaining(List<String> lines, String marker) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(marker)) {
                return i;
            }
        }
        throw new AssertionError("marker not found: " + marker);
    }

    static String normalize(List<String> lines) {
        int indent = lines.stream().filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        return lines.stream().map(l -> l.isBlank() ? "" : l.substring(indent).stripTrailing())
                .collect(Collectors.joining("\n")).strip();
    }
}
