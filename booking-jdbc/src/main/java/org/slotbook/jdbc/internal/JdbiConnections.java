package org.slotbook.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;

/**
 * Connections through the host's Jdbi: each call opens a handle and closes it afterwards, so the
 * host's handle listeners and connection factory see every call. Jdbi's exceptions become the
 * {@link SQLException} underneath, so the store retries and reports them as on a {@code DataSource}.
 * Only {@code JdbiStores} refers to this class: without Jdbi on the class path it is never loaded.
 */
public final class JdbiConnections implements Connections {
    private final Jdbi jdbi;

    public JdbiConnections(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    @Override
    public Lease open() throws SQLException {
        Handle handle;
        try {
            handle = jdbi.open();
        } catch (JdbiException e) {
            throw unwrap(e);
        }
        return new Lease() {
            @Override
            public Connection connection() {
                return handle.getConnection();
            }

            @Override
            public void close() throws SQLException {
                try {
                    handle.close();
                } catch (JdbiException e) {
                    throw unwrap(e);
                }
            }
        };
    }

    private static SQLException unwrap(JdbiException e) {
        return e.getCause() instanceof SQLException cause ? cause : new SQLException(e.getMessage(), e);
    }
}
