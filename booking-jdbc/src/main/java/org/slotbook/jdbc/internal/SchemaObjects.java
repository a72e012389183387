package org.slotbook.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slotbook.jdbc.JdbcDialect;

/**
 * The tables and routines a dialect's shipped scripts create under one prefix, read from the scripts
 * themselves (every {@code CREATE TABLE}, {@code CREATE FUNCTION}, {@code PROCEDURE} or
 * {@code ALIAS}, and {@code CREATE TYPE} or {@code CREATE DOMAIN} of a {@code ${prefix}} name, a type or
 * domain also inside a block), so a table, routine, type or domain added to a script is dropped with the
 * others without being listed twice.
 */
public final class SchemaObjects {
    private static final Pattern TABLE =
            Pattern.compile("(?is)CREATE\\s+TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?\\$\\{prefix}(\\w+).*");
    private static final Pattern ROUTINE = Pattern.compile(
            "(?is)CREATE\\s+(?:OR\\s+REPLACE\\s+)?(FUNCTION|PROCEDURE|ALIAS)\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?"
                    + "\\$\\{prefix}(\\w+).*");
    private static final Pattern TYPE = Pattern.compile("(?is)\\bCREATE\\s+TYPE\\s+\\$\\{prefix}(\\w+)");
    private static final Pattern DOMAIN = Pattern.compile("(?is)\\bCREATE\\s+DOMAIN\\s+\\$\\{prefix}(\\w+)");

    private final JdbcDialect dialect;
    private final List<String> tables;
    /** Routine name to its kind (FUNCTION, PROCEDURE, ALIAS), in the order the scripts create them. */
    private final Map<String, String> routines;
    /** The types the routines answer (PostgreSQL), in the order the scripts create them. */
    private final List<String> types;
    /** The domains of table columns (PostgreSQL), in the order the scripts create them. */
    private final List<String> domains;

    private SchemaObjects(JdbcDialect dialect, List<String> tables, Map<String, String> routines, List<String> types,
                          List<String> domains) {
        this.dialect = dialect;
        this.tables = tables;
        this.routines = routines;
        this.types = types;
        this.domains = domains;
    }

    /** What {@code schema-<dialect>.sql} and {@code routines-<dialect>.sql} create under {@code prefix}. */
    public static SchemaObjects of(JdbcDialect dialect, String prefix) {
        Tables.checkPrefix(prefix);
        Set<String> tables = new LinkedHashSet<>();
        Map<String, String> routines = new LinkedHashMap<>();
        Set<String> types = new LinkedHashSet<>();
        Set<String> domains = new LinkedHashSet<>();
        for (String resource : List.of(dialect.schemaResource(), dialect.routinesResource())) {
            for (String sql : SqlScript.statements(SqlScript.raw(resource))) {
                Matcher table = TABLE.matcher(sql);
                Matcher routine = ROUTINE.matcher(sql);
                if (table.matches()) {
                    tables.add(prefix + table.group(1).toLowerCase(java.util.Locale.ROOT));
                } else if (routine.matches()) {
                    routines.putIfAbsent(prefix + routine.group(2).toLowerCase(java.util.Locale.ROOT),
                            routine.group(1).toUpperCase(java.util.Locale.ROOT));
                }
                Matcher type = TYPE.matcher(sql);
                while (type.find()) {
                    types.add(prefix + type.group(1).toLowerCase(java.util.Locale.ROOT));
                }
                Matcher domain = DOMAIN.matcher(sql);
                while (domain.find()) {
                    domains.add(prefix + domain.group(1).toLowerCase(java.util.Locale.ROOT));
                }
            }
        }
        return new SchemaObjects(dialect, List.copyOf(tables), routines, List.copyOf(types), List.copyOf(domains));
    }

    /** The tables, in the order the schema script creates them. */
    public List<String> tables() {
        return tables;
    }

    /** The routine names, in the order the routines script creates them. */
    public List<String> routines() {
        return List.copyOf(routines.keySet());
    }

    /**
     * The statements that drop every routine, then every type, then every table (in reverse order of
     * creation), then the domains of their columns, each one skipped by the database when its object is already gone. On PostgreSQL a function is
     * dropped by its signature, every overload of the name in the current schema, which is why the
     * connection is asked.
     */
    public List<String> dropStatements(Connection connection) throws SQLException {
        List<String> drops = new ArrayList<>();
        for (Map.Entry<String, String> routine : routines.entrySet()) {
            switch (dialect) {
                case H2 -> drops.add("DROP ALIAS IF EXISTS " + routine.getKey());
                case MARIADB -> drops.add("DROP " + routine.getValue() + " IF EXISTS " + routine.getKey());
                case POSTGRESQL -> {
                    for (String signature : postgresSignatures(connection, routine.getKey())) {
                        drops.add("DROP FUNCTION IF EXISTS " + signature);
                    }
                }
            }
        }
        for (String type : types) {
            drops.add("DROP TYPE IF EXISTS " + type);
        }
        for (int i = tables.size() - 1; i >= 0; i--) {
            drops.add("DROP TABLE IF EXISTS " + tables.get(i));
        }
        for (String domain : domains) {
            drops.add("DROP DOMAIN IF EXISTS " + domain);
        }
        return drops;
    }

    private static List<String> postgresSignatures(Connection connection, String name) throws SQLException {
        List<String> signatures = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement("SELECT p.oid::regprocedure::text FROM pg_proc p"
                + " JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.proname = ? AND n.nspname = current_schema()")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    signatures.add(rs.getString(1));
                }
            }
        }
        return signatures;
    }
}
