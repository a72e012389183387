package org.slotbook.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Keeps the README's "Booking rules" and "Lesson packages" snippets identical to the regions of
 * Rules.java and Lessons.java, and runs both.
 */
class ReadmeRulesTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /** README heading (the first java block after it), and the example file and region it shows. */
    private static final Map<String, String> SECTIONS = Map.ofEntries(
            Map.entry("## Booking rules", "Rules.java|rules: engine"),
            Map.entry("### Booking window", "Rules.java|rules: booking window"),
            Map.entry("### Cancellation policy", "Rules.java|rules: cancellation"),
            Map.entry("### Buffers", "Rules.java|rules: buffers"),
            Map.entry("### Limits per student", "Rules.java|rules: limits"),
            Map.entry("### Waitlist", "Rules.java|rules: waitlist"),
            Map.entry("### What a front desk and a student app read", "Rules.java|rules: reads"),
            Map.entry("## Lesson packages, attendance and weekly series", "Lessons.java|lessons: rules"),
            Map.entry("### Lesson packages", "Lessons.java|lessons: packages"),
            Map.entry("### Attendance", "Lessons.java|lessons: attendance"),
            Map.entry("### Weekly series", "Lessons.java|lessons: series"));

    @Test
    void everyRuleSnippetIsCompiledCode() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        for (Map.Entry<String, String> section : SECTIONS.entrySet()) {
            String file = section.getValue().substring(0, section.getValue().indexOf('|'));
            String region = section.getValue().substring(file.length() + 1);
            List<String> source = Files.readAllLines(
                    ROOT.resolve("booking-examples/src/main/java/org/slotbook/examples/" + file));
            int heading = readme.indexOf("\n" + section.getKey() + "\n");
            assertThat(heading).as("README heading %s", section.getKey()).isPositive();
            int open = readme.indexOf("```java", heading);
            int close = readme.indexOf("```", open + 7);
            String snippet = ReadmeTest.normalize(readme.substring(open + 7, close).lines().collect(Collectors.toList()));
            int from = ReadmeTest.indexOfContaining(source, "--- " + region + " (README) ---") + 1;
            int to = from;
            while (!source.get(to).contains("--- end ---")) {
                to++;
            }
            assertThat(snippet).as("README %s vs %s", section.getKey(), file)
                    .isEqualTo(ReadmeTest.normalize(source.subList(from, to)));
        }
    }

    @Test
    void everyRuleBehaves() {
        assertThat(ReadmeTest.printedBy(() -> Rules.main(new String[0]))).contains("Every rule behaved.");
    }

    @Test
    void everyLessonRuleBehaves() {
        assertThat(ReadmeTest.printedBy(() -> Lessons.main(new String[0]))).contains("Every lesson rule behaved.");
    }
}
