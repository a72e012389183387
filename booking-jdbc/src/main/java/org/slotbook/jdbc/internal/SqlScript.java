package org.slotbook.jdbc.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** A DDL resource: placeholder substitution and splitting into statements. */
public final class SqlScript {
    /** A line {@code DELIMITER //} (the mariadb/mysql client's and Flyway's convention) sets the separator. */
    private static final Pattern DELIMITER = Pattern.compile("(?i)[ \\t]*DELIMITER[ \\t]+(\\S+)[ \\t]*\\r?");

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
     * statements that are only comments. A line {@code DELIMITER xx} (MariaDB/MySQL routine bodies)
     * makes {@code xx} the separator from the next line on, until the next such line
     * ({@code DELIMITER ;}); the line itself is not part of any statement.
     */
    public static List<String> statements(String script) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        String delimiter = ";";
        int i = 0;
        int n = script.length();
        while (i < n) {
            if (i == 0 || script.charAt(i - 1) == '\n') {
                int eol = script.indexOf('\n', i);
                eol = eol < 0 ? n : eol;
                Matcher directive = DELIMITER.matcher(script.substring(i, eol));
                if (directive.matches()) {
                    delimiter = directive.group(1);
                    i = eol;
                    continue;
                }
            }
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
            // before dollar quotes: a MariaDB script may say DELIMITER $$
            if (script.startsWith(delimiter, i)) {
                add(statements, current);
                current.setLength(0);
                i += delimiter.length();
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
    static @Nullable String dollarTag(String script, int i) {
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
