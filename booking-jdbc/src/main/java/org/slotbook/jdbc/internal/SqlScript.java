package org.slotbook.jdbc.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
