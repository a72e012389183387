package org.slotbook.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.slotbook.core.tck.MarkdownPages;

/**
 * Keeps the snippets of the guide's "Booking rules" and "Lesson packages" pages identical to the regions
 * of Rules.java and Lessons.java, and runs both.
 */
class ReadmeRulesTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static final String RULES = "docs/guides/booking-rules.md";
    private static final String LESSONS = "docs/guides/lessons.md";

    /** Page and heading (the first java block of that section), and the example file and region it shows. */
    private static final Map<String, String> SECTIONS = Map.ofEntries(
            Map.entry(RULES + "|# Booking rules", "Rules.java|rules: engine"),
            Map.entry(RULES + "|## Booking window", "Rules.java|rules: booking window"),
            Map.entry(RULES + "|## Cancellation policy", "Rules.java|rules: cancellation"),
            Map.entry(RULES + "|## Buffers", "Rules.java|rules: buffers"),
            Map.entry(RULES + "|## Limits per student", "Rules.java|rules: limits"),
            Map.entry(RULES + "|## Waitlist", "Rules.java|rules: waitlist"),
            Map.entry(RULES + "|## What a front desk and a student app read", "Rules.java|rules: reads"),
            Map.entry(LESSONS + "|# Lesson packages, attendance and weekly series", "Lessons.java|lessons: rules"),
            Map.entry(LESSONS + "|## Lesson packages", "Lessons.java|lessons: packages"),
            Map.entry(LESSONS + "|## Attendance", "Lessons.java|lessons: attendance"),
            Map.entry(LESSONS + "|## Weekly series", "Lessons.java|lessons: series"));

    @Test
    void everyRuleSnippetIsCompiledCode() throws IOException {
        for (Map.Entry<String, String> section : SECTIONS.entrySet()) {
            String file = section.getValue().substring(0, section.getValue().indexOf('|'));
            String region = section.getValue().substring(file.length() + 1);
            List<String> source = Files.readAllLines(
                    ROOT.resolve("booking-examples/src/main/java/org/slotbook/examples/" + file));
            String page = section.getKey().substring(0, section.getKey().indexOf('|'));
            String heading = section.getKey().substring(page.length() + 1);
            String text = MarkdownPages.section(page, heading);
            String snippet = ReadmeTest.normalize(MarkdownPages.firstCodeBlock(text, "java").lines()
                    .collect(Collectors.toList()));
            int from = ReadmeTest.indexOfContaining(source, "--- " + region + " (README) ---") + 1;
            int to = from;
            while (!source.get(to).contains("--- end ---")) {
                to++;
            }
            assertThat(snippet).as("%s vs %s", section.getKey(), file)
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
