package org.slotbook.jdbc.testing;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.JdbcDatabaseContainer;
import org.testcontainers.mariadb.MariaDBContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * Database containers, one per kind and JVM, when Testcontainers is on the class path and Docker
 * answers. Only {@link TestDatabases} touches this class, and only after checking the former.
 */
final class Containers {
    private static JdbcDatabaseContainer<?> postgres;
    private static JdbcDatabaseContainer<?> mariadb;

    private Containers() {
    }

    static boolean present() {
        try {
            Class.forName("org.testcontainers.DockerClientFactory", false, Containers.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            return false;
        }
        return DockerClientFactory.instance().isDockerAvailable();
    }

    /** A JDBC URL (with credentials) of a started PostgreSQL 15 container. */
    static synchronized String postgresUrl() {
        if (postgres == null) {
            postgres = start(new PostgreSQLContainer("postgres:15-alpine"));
        }
        return withCredentials(postgres);
    }

    /** A JDBC URL (with credentials) of a started MariaDB 10.11 container. */
    static synchronized String mariadbUrl() {
        if (mariadb == null) {
            mariadb = start(new MariaDBContainer("mariadb:10.11"));
        }
        return withCredentials(mariadb);
    }

    private static JdbcDatabaseContainer<?> start(JdbcDatabaseContainer<?> container) {
        container.start();
        Runtime.getRuntime().addShutdownHook(new Thread(container::stop));
        return container;
    }

    private static String withCredentials(JdbcDatabaseContainer<?> container) {
        String url = container.getJdbcUrl();
        return url + (url.contains("?") ? "&" : "?") + "user=" + container.getUsername() + "&password="
                + container.getPassword();
    }
}
