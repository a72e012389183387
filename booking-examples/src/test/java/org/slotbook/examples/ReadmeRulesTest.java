package org.slotbook.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Keeps the README's "Booking rules" snippets identical to the regions of Rules.java, and runs it. */
class ReadmeRulesTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /** README heading (the first java block after it) and the region of Rules.java it shows. */
    private static final Map<String, String> SECTIONS = Map.of(
            "## Booking rules", "engine",
            "### Booking window", "booking window",
            "### Cancellation policy", "cancellation",
            "### Buffers", "buffers",
            "### Limits per student", "limits",
            "### Waitlist", "waitlist",
            "### What a front desk and a student app read", "reads");

    @Test
    void everyRuleSnippetIsCompiledCode() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        List<String> source = Files.readAllLines(
                ROOT.resolve("booking-examples/src/main/java/org/slotbook/examples/Rules.java"));
        for (Map.Entry<String, String> section : SECTIONS.entrySet()) {
            int heading = readme.indexOf("\n" + section.getKey() + "\n");
            assertThat(heading).as("README heading %s", section.getKey()).isPositive();
            int open = readme.indexOf("```java", heading);
            int close = readme.indexOf("```", open + 7);
            String snippet = ReadmeTest.normalize(readme.substring(open + 7, close).lines().collect(Collectors.toList()));
            int from = ReadmeTest.indexOfContaining(source, "--- rules: " + section.getValue() + " (README) ---") + 1;
            int to = from;
            while (!source.get(to).contains("--- end ---")) {
                to++;
            }
            assertThat(snippet).as("README %s vs Rules.java", section.getKey())
                    .isEqualTo(ReadmeTest.normalize(source.subList(from, to)));
        }
    }

    @Test
    void everyRuleBehaves() {
        assertThat(ReadmeTest.printedBy(() -> Rules.main(new String[0]))).contains("Every rule behaved.");
    }
}
