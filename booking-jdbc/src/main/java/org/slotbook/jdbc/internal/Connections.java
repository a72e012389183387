package org.slotbook.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Where a store takes the connection for one call: the host's {@code DataSource}, or its Jdbi
 * ({@link JdbiConnections}, loaded only by a host that has Jdbi).
 */
@FunctionalInterface
public interface Connections {
    /** A connection for one call; closing the lease gives it back to the host. */
    Lease open() throws SQLException;

    /** One borrowed connection. */
    interface Lease extends AutoCloseable {
        Connection connection();

        @Override
        void close() throws SQLException;
    }

    /** Connections straight from the host's pool: the connection is its own lease. */
    static Connections of(DataSource dataSource) {
        return () -> {
            Connection connection = dataSource.getConnection();
            if (connection == null) {
                throw new SQLException("the DataSource returned no connection");
            }
            return new Lease() {
                @Override
                public Connection connection() {
                    return connection;
                }

                @Override
                public void close() throws SQLException {
                    connection.close();
                }
            };
        };
    }
}
