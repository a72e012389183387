package org.slotbook.jdbc;

/**
 * The SQL dialects the JDBC store speaks. {@link JdbcStore} and {@link JdbcSchema} detect it from
 * {@link java.sql.DatabaseMetaData#getDatabaseProductName()}; a builder may set it explicitly.
 */
public enum JdbcDialect {
    /** PostgreSQL 15 or newer. */
    POSTGRESQL("schema-postgresql.sql"),
    /** MariaDB 10.6 or newer (SKIP LOCKED), and MySQL 8. */
    MARIADB("schema-mariadb.sql"),
    /** H2 2.x, embedded. */
    H2("schema-h2.sql");

    private final String schemaFile;

    JdbcDialect(String schemaFile) {
        this.schemaFile = schemaFile;
    }

    /** Class path location of this dialect's DDL, with a {@code ${prefix}} placeholder for the table prefix. */
    public String schemaResource() {
        return "org/slotbook/jdbc/" + schemaFile;
    }

    /**
     * The dialect for a JDBC database product name ({@code DatabaseMetaData#getDatabaseProductName}).
     *
     * @throws IllegalArgumentException for a database the store does not support
     */
    public static JdbcDialect forProductName(String productName) {
        if (productName == null) {
            throw new IllegalArgumentException("productName must not be null");
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
        throw new IllegalArgumentException("productName '" + productName
                + "' is not a supported database (PostgreSQL, MariaDB, MySQL, H2); set the dialect explicitly");
    }
}
