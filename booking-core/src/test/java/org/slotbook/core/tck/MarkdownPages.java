package org.slotbook.core.tck;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Reads the project's Markdown pages (README.md and the guide under docs/) for the tests that keep
 * their snippets equal to code the build compiles: a page, one section of it, the code blocks of a
 * section. Headings inside code blocks (a {@code # comment} line of a properties file) are not headings.
 */
public final class MarkdownPages {
    private MarkdownPages() {
    }

    /** The repository root: the nearest directory, from the working directory upward, with README.md and docs/. */
    public static Path root() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs"))) {
                return dir;
            }
        }
        throw new AssertionError("no README.md with a docs/ directory above " + Path.of("").toAbsolutePath());
    }

    /** The text of a page, {@code page} relative to the repository root (e.g. {@code docs/guides/redis.md}). */
    public static String page(String page) {
        try {
            return Files.readString(root().resolve(page));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + page, e);
        }
    }

    /**
     * The section of {@code page} under {@code heading} (the whole heading line, e.g. {@code ### Waitlist}):
     * from that line up to the next heading of the same or a higher level, or the end of the page.
     */
    public static String section(String page, String heading) {
        List<String> lines = page(page).lines().collect(Collectors.toList());
        int level = level(heading);
        if (level == 0) {
            throw new IllegalArgumentException("not a heading line: '" + heading + "'");
        }
        boolean inCode = false;
        int start = -1;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("```")) {
                inCode = !inCode;
                continue;
            }
            if (inCode) {
                continue;
            }
            if (start < 0) {
                if (line.equals(heading)) {
                    start = i;
                }
            } else if (level(line) > 0 && level(line) <= level) {
                return String.join("\n", lines.subList(start, i)) + "\n";
            }
        }
        if (start < 0) {
            throw new AssertionError(page + " has no heading '" + heading + "'");
        }
        return String.join("\n", lines.subList(start, lines.size())) + "\n";
    }

    /** The bodies of the fenced code blocks of {@code language} in {@code text}, in order, each ending in a newline. */
    public static List<String> codeBlocks(String text, String language) {
        List<String> blocks = new ArrayList<>();
        StringBuilder block = null;
        boolean inOther = false;
        for (String line : text.lines().toList()) {
            if (block != null) {
                if (line.startsWith("```")) {
                    blocks.add(block.toString());
                    block = null;
                } else {
                    block.append(line).append('\n');
                }
            } else if (line.startsWith("```")) {
                if (inOther) {
                    inOther = false;
                } else if (line.equals("```" + language)) {
                    block = new StringBuilder();
                } else {
                    inOther = true;
                }
            }
        }
        return blocks;
    }

    /** The first fenced code block of {@code language} in {@code text}. */
    public static String firstCodeBlock(String text, String language) {
        List<String> blocks = codeBlocks(text, language);
        if (blocks.isEmpty()) {
            throw new AssertionError("no ```" + language + " block in:\n" + text);
        }
        return blocks.get(0);
    }

    private static int level(String line) {
        int hashes = 0;
        while (hashes < line.length() && line.charAt(hashes) == '#') {
            hashes++;
        }
        return hashes > 0 && hashes <= 6 && line.length() > hashes && line.charAt(hashes) == ' ' ? hashes : 0;
    }
}
