package org.slotbook.spring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slotbook.jdbc.JdbcDialect;
import org.slotbook.jdbc.internal.SqlScript;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

/**
 * Slotbook's schema as the shipped files describe it, and the start-up check that the database has
 * it: every table with every column, every decision routine, and (when Slotbook's own Flyway history
 * table exists) every shipped migration applied.
 */
public final class SlotbookSchema {
    /** Class path folder of the migrations; the dialect's folder name follows ({@code postgresql}, {@code mariadb}, {@code h2}). */
    public static final String MIGRATIONS = "db/migration/slotbook/";
    /** Flyway placeholder for the table prefix in the migrations. */
    public static final String PLACEHOLDER = "slotbook_prefix";

    private static final Pattern TABLE = Pattern.compile(
            "CREATE TABLE IF NOT EXISTS \\$\\{prefix\\}(\\w+)\\s*\\((.*?)\\n\\)", Pattern.DOTALL);
    private static final Pattern ROUTINE = Pattern.compile(
            "CREATE (?:OR REPLACE (?:FUNCTION|PROCEDURE)|ALIAS IF NOT EXISTS)\\s+\\$\\{prefix\\}(\\w+)");
    private static final Set<String> NOT_COLUMNS = Set.of("primary", "unique", "constraint", "key", "index",
            "check", "foreign", "exclude");

    private SlotbookSchema() {
    }

    /**
     * {@return the migrations folder of a dialect, as a Flyway location}
     *
     * @param dialect the SQL dialect of the database
     */
    public static String location(JdbcDialect dialect) {
        return "classpath:" + MIGRATIONS + dialect.name().toLowerCase(Locale.ROOT);
    }

    /**
     * {@return table (without prefix) to its columns, in file order, as the shipped schema file creates them}
     *
     * @param dialect the SQL dialect of the database
     */
    public static Map<String, List<String>> expectedTables(JdbcDialect dialect) {
        Map<String, List<String>> tables = new LinkedHashMap<>();
        Matcher m = TABLE.matcher(SqlScript.raw(dialect.schemaResource()));
        while (m.find()) {
            List<String> columns = new ArrayList<>();
            int depth = 0; // a line inside a parenthesis (a CHECK going on) starts no column
            for (String line : m.group(2).split("\n")) {
                String text = line.strip();
                int comment = text.indexOf("--");
                text = comment < 0 ? text : text.substring(0, comment).strip();
                if (depth == 0 && !text.isEmpty()) {
                    String first = text.split("[\\s(,]", 2)[0].toLowerCase(Locale.ROOT);
                    if (!first.isEmpty() && !NOT_COLUMNS.contains(first)) {
                        columns.add(first);
                    }
                }
                for (char c : text.toCharArray()) {
                    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
                }
            }
            tables.put(m.group(1), columns);
        }
        return tables;
    }

    /**
     * {@return routine names (without prefix) the shipped routines file creates}
     *
     * @param dialect the SQL dialect of the database
     */
    public static Set<String> expectedRoutines(JdbcDialect dialect) {
        Set<String> routines = new LinkedHashSet<>();
        Matcher m = ROUTINE.matcher(SqlScript.raw(dialect.routinesResource()));
        while (m.find()) {
            routines.add(m.group(1).toLowerCase(Locale.ROOT));
        }
        return routines;
    }

    /**
     * What is missing from the database, one entry per table, column or routine, each naming it with
     * its prefix; empty when the schema is complete.
     *
     * @param dataSource the host's database
     * @param dialect the SQL dialect of the database
     * @param prefix the table prefix: empty or up to 24 characters of a-z, 0-9 and _
     * @return one line per missing table, column or routine (empty: nothing missing)
     */
    public static List<String> missing(DataSource dataSource, JdbcDialect dialect, String prefix) {
        List<String> missing = new ArrayList<>();
        try (Connection connection = dataSource.getConnection()) {
            for (Map.Entry<String, List<String>> table : expectedTables(dialect).entrySet()) {
                String name = prefix + table.getKey();
                Set<String> present = columns(connection, name);
                if (present == null) {
                    missing.add("table " + name);
                    continue;
                }
                for (String column : table.getValue()) {
                    if (!present.contains(column)) {
                        missing.add("column " + name + "." + column);
                    }
                }
            }
            for (String routine : expectedRoutines(dialect)) {
                if (!routineExists(connection, dialect, prefix + routine)) {
                    missing.add("routine " + prefix + routine);
                }
            }
            String applied = appliedVersion(connection, dialect, prefix);
            if (applied != null) {
                for (String shipped : shippedVersions(dialect)) {
                    if (compareVersions(shipped, applied) > 0) {
                        missing.add("migration V" + shipped + " (" + prefix + "schema_history is at V" + applied + ")");
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Slotbook could not check its schema: " + e.getMessage(), e);
        }
        return missing;
    }

    /**
     * Fails start-up with a message naming every missing table, column and routine, and how to
     * create them.
     *
     * @param dataSource the host's database
     * @param dialect the SQL dialect of the database
     * @param prefix the table prefix: empty or up to 24 characters of a-z, 0-9 and _
     */
    public static void validate(DataSource dataSource, JdbcDialect dialect, String prefix) {
        List<String> missing = missing(dataSource, dialect, prefix);
        if (!missing.isEmpty()) {
            throw new IllegalStateException("Slotbook's schema (prefix '" + prefix + "', " + dialect
                    + ") is missing or not current: missing " + String.join(", ", missing)
                    + ". Set slotbook.flyway.enabled=true to run Slotbook's migrations ("
                    + location(dialect) + ") at start-up, or run them with your migration tool"
                    + " (placeholder " + PLACEHOLDER + "=" + prefix + "), or call JdbcSchema.create;"
                    + " slotbook.jdbc.validate-schema=false skips this check");
        }
    }

    /**
     * {@return versions of the migrations shipped for the dialect, in order}
     *
     * @param dialect the SQL dialect of the database
     */
    public static List<String> shippedVersions(JdbcDialect dialect) {
        List<String> versions = new ArrayList<>();
        try {
            Resource[] files = new PathMatchingResourcePatternResolver(SlotbookSchema.class.getClassLoader())
                    .getResources("classpath*:" + MIGRATIONS + dialect.name().toLowerCase(Locale.ROOT) + "/V*__*.sql");
            for (Resource file : files) {
                String name = file.getFilename();
                if (name != null) {
                    versions.add(name.substring(1, name.indexOf("__")).replace('_', '.'));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not list Slotbook's migrations", e);
        }
        versions.sort(SlotbookSchema::compareVersions);
        return versions;
    }

    /** The highest successful version in Slotbook's own history table, or null when there is none. */
    private static @Nullable String appliedVersion(Connection connection, JdbcDialect dialect, String prefix)
            throws SQLException {
        String q = dialect == JdbcDialect.MARIADB ? "`" : "\"";
        boolean autoCommit = connection.getAutoCommit();
        String newest = null;
        try (Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT " + q + "version" + q + " FROM " + q + prefix
                     + "schema_history" + q + " WHERE " + q + "success" + q + " = TRUE AND " + q + "version" + q
                     + " IS NOT NULL")) {
            while (rs.next()) {
                String version = rs.getString(1);
                if (newest == null || compareVersions(version, newest) > 0) {
                    newest = version;
                }
            }
        } catch (SQLException e) {
            if (!autoCommit) {
                connection.rollback();
            }
            return null; // no history of Slotbook's own: migrated another way
        }
        return newest;
    }

    static int compareVersions(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            long p = i < x.length ? Long.parseLong(x[i]) : 0;
            long r = i < y.length ? Long.parseLong(y[i]) : 0;
            if (p != r) {
                return Long.compare(p, r);
            }
        }
        return 0;
    }

    /** Lower-case column names of a table, or null when there is no such table. */
    private static @Nullable Set<String> columns(Connection connection, String table) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        try (Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
            ResultSetMetaData meta = rs.getMetaData();
            Set<String> columns = new LinkedHashSet<>();
            for (int i = 1; i <= meta.getColumnCount(); i++) {
                columns.add(meta.getColumnName(i).toLowerCase(Locale.ROOT));
            }
            return columns;
        } catch (SQLException e) {
            if (!autoCommit) {
                connection.rollback(); // PostgreSQL: a failed statement aborts the transaction
            }
            return null;
        }
    }

    private static boolean routineExists(Connection connection, JdbcDialect dialect, String name)
            throws SQLException {
        String schema = switch (dialect) {
            case POSTGRESQL -> "current_schema()";
            case MARIADB -> "DATABASE()";
            case H2 -> "SCHEMA()";
        };
        String sql = "SELECT COUNT(*) FROM information_schema.routines WHERE routine_schema = " + schema
                + " AND LOWER(routine_name) = ?";
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, name.toLowerCase(Locale.ROOT));
            try (ResultSet rs = statement.executeQuery()) {
                return rs.next() && rs.getLong(1) > 0;
            }
        }
    }
}
