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
                int tagEnd = script.indexOf('$', i + 1);
                if (tagEnd > 0 && script.substring(i + 1, tagEnd).matches("[A-Za-z_]*")) {
                    String tag = script.substring(i, tagEnd + 1);
                    int close = script.indexOf(tag, tagEnd + 1);
                    close = close < 0 ? n - tag.length() : close;
                    current.append(script, i, close + tag.length());
                    i = close + tag.length();
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

    private static void add(List<String> statements, StringBuilder statement) {
        String text = statement.toString().strip();
        if (!text.isEmpty()) {
            statements.add(text);
        }
    }
}
