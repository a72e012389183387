package org.slotbook.jdbc;

import org.slotbook.core.InvalidInputException;

/**
 * The SQL dialects the JDBC store speaks. {@link JdbcStore} and {@link JdbcSchema} detect it from
 * {@link java.sql.DatabaseMetaData#getDatabaseProductName()}; a builder may set it explicitly.
 */
public enum JdbcDialect {
    /** PostgreSQL 15 or newer. */
    POSTGRESQL("postgresql"),
    /** MariaDB 10.6 or newer (SKIP LOCKED), and MySQL 8. */
    MARIADB("mariadb"),
    /** H2 2.x, embedded. */
    H2("h2");

    private final String fileSuffix;

    JdbcDialect(String fileSuffix) {
        this.fileSuffix = fileSuffix;
    }

    /**
     * {@return class path location of this dialect's tables, with a {@code ${prefix}} placeholder for the
     * table prefix}
     */
    public String schemaResource() {
        return "org/slotbook/jdbc/schema-" + fileSuffix + ".sql";
    }

    /**
     * {@return class path location of this dialect's decision routines (functions, procedures or aliases), run
     * after {@link #schemaResource()}; same placeholder}
     */
    public String routinesResource() {
        return "org/slotbook/jdbc/routines-" + fileSuffix + ".sql";
    }

    /**
     * The dialect for a JDBC database product name ({@code DatabaseMetaData#getDatabaseProductName}).
     *
     * @param productName the database's product name, as JDBC metadata gives it
     * @return the dialect
     * @throws IllegalArgumentException for a database the store does not support
     */
    public static JdbcDialect forProductName(String productName) {
        if (productName == null) {
            throw new InvalidInputException("productName must not be null");
        }
        String name = productName.toLowerCase(java.util.Locale.ROOT);
        if (name.contains("postgres")) {
            return POSTGRESQL;
        }
        if (name.contains("mariadb") || name.contains("mysql")) {
            return MARIADB;
        }
        if (name.equals("h2")) {
            return H2;
        }
        throw new InvalidInputException("productName '" + productName
                + "' is not a supported database (PostgreSQL, MariaDB, MySQL, H2); set the dialect explicitly");
    }
}
