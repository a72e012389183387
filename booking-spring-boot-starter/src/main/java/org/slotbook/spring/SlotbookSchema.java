package org.slotbook.spring;

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

/**
 * Slotbook's schema as the shipped files describe it, and the start-up check that the database has
 * it: every table with every column, and every decision routine.
 */
public final class SlotbookSchema {
    /**
     * Class path folder of the migrations, outside {@code db/migration} so that no default Flyway
     * location finds them; the dialect's folder follows ({@code postgresql}, {@code mariadb}, {@code h2}),
     * named as Spring Boot's {@code {vendor}} placeholder names the database.
     */
    public static final String MIGRATIONS = "org/slotbook/jdbc/migration/";
    /** The migrations of every dialect as one Flyway location of Spring Boot's ({@code spring.flyway.locations}). */
    public static final String BOOT_LOCATION = "classpath:" + MIGRATIONS + "{vendor}";
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
            throw new SlotbookStartupException("Slotbook's schema (prefix '" + prefix + "', " + dialect
                    + ") is missing or not current: missing " + String.join(", ", missing) + ".",
                    "Let the starter run Slotbook's migration (slotbook.flyway.enabled=true, the default), or add "
                    + BOOT_LOCATION + " to spring.flyway.locations with spring.flyway.placeholders." + PLACEHOLDER
                    + "=" + prefix + ", or call JdbcSchema.create; slotbook.jdbc.validate-schema=false skips this"
                    + " check.");
        }
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
