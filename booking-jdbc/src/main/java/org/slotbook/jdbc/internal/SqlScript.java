package org.slotbook.jdbc.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A DDL resource: placeholder substitution and splitting into statements. */
public final class SqlScript {
    private SqlScript() {
    }

    public static String load(String resource, String prefix) {
        Tables.checkPrefix(prefix);
        return raw(resource).replace("${prefix}", prefix);
    }

    /** The resource as shipped, placeholder included. */
    public static String raw(String resource) {
        try (InputStream in = SqlScript.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("schema resource " + resource + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + resource, e);
        }
    }

    /**
     * Splits at semicolons outside quotes, {@code --} comments and PostgreSQL dollar quotes; drops
     * statements that are only comments.
     */
    public static List<String> statements(String script) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        int i = 0;
        int n = script.length();
        while (i < n) {
            char c = script.charAt(i);
            if (c == '-' && i + 1 < n && script.charAt(i + 1) == '-') {
                int end = script.indexOf('\n', i);
                end = end < 0 ? n : end;
                i = end;
                continue;
            }
            if (c == '\'' || c == '"') {
                int end = script.indexOf(c, i + 1);
                end = end < 0 ? n - 1 : end;
                current.append(script, i, end + 1);
                i = end + 1;
                continue;
            }
            if (c == '$') {
                String tag = dollarTag(script, i);
                if (tag != null) {
                    // a PostgreSQL body: everything up to the same tag is one piece, semicolons included
                    int close = script.indexOf(tag, i + tag.length());
                    int end = close < 0 ? n : close + tag.length();
                    current.append(script, i, end);
                    i = end;
                    continue;
                }
            }
            if (c == ';') {
                add(statements, current);
                current.setLength(0);
                i++;
                continue;
            }
            current.append(c);
            i++;
        }
        add(statements, current);
        return statements;
    }

    /**
     * The dollar-quote opening at {@code i} ({@code $$} or {@code $tag$}, the tag an identifier
     * without a dollar sign), or null: {@code $1} is a parameter, and a dollar sign inside an
     * identifier ({@code a$b}) opens nothing.
     */
    static String dollarTag(String script, int i) {
        if (i > 0 && isTagPart(script.charAt(i - 1))) {
            return null;
        }
        int end = i + 1;
        while (end < script.length() && isTagPart(script.charAt(end))) {
            end++;
        }
        if (end >= script.length() || script.charAt(end) != '$'
                || (end > i + 1 && Character.isDigit(script.charAt(i + 1)))) {
            return null;
        }
        return script.substring(i, end + 1);
    }

    private static boolean isTagPart(char c) {
        return c == '_' || Character.isLetterOrDigit(c);
    }

    private static void add(List<String> statements, StringBuilder statement) {
        String text = statement.toString().strip();
        if (!text.isEmpty()) {
            statements.add(text);
        }
    }
}
