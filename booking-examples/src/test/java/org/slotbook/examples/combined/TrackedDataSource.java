package org.slotbook.examples.combined;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.WeakHashMap;
import javax.sql.DataSource;
import org.slotbook.jdbc.JdbcDialect;
import org.slotbook.jdbc.testing.ForwardingDataSource;

/**
 * A DataSource in front of a pool that learns the server-side id of every physical connection it
 * hands out (PostgreSQL backend pid, MariaDB connection id), so a test can kill exactly the engine's
 * connections and nobody else's. PostgreSQL connections are also tagged with an
 * {@code application_name} unique to this data source, so a pid that the server reused for another
 * client is never a target.
 */
final class TrackedDataSource extends ForwardingDataSource {
    private final JdbcDialect dialect;
    private final String applicationName = "slotbook-faults-" + UUID.randomUUID().toString().substring(0, 8);
    private final Map<Connection, Long> ids = Collections.synchronizedMap(new WeakHashMap<>());

    TrackedDataSource(DataSource pool, JdbcDialect dialect) {
        super(pool);
        if (dialect == JdbcDialect.H2) {
            throw new IllegalArgumentException("dialect must have killable server connections, got " + dialect);
        }
        this.dialect = dialect;
    }

    String applicationName() {
        return applicationName;
    }

    /** The server ids of the physical connections seen so far that are still open on this side. */
    List<Long> ids() {
        synchronized (ids) {
            return ids.entrySet().stream().filter(e -> open(e.getKey())).map(Map.Entry::getValue).toList();
        }
    }

    private static boolean open(Connection c) {
        try {
            return !c.isClosed();
        } catch (SQLException e) {
            return false;
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = delegate.getConnection();
        try {
            Connection physical = connection.unwrap(Connection.class);
            if (!ids.containsKey(physical)) {
                ids.put(physical, identify(connection));
            }
            return connection;
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    private long identify(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement()) {
            if (dialect == JdbcDialect.POSTGRESQL) {
                s.execute("SET application_name = '" + applicationName + "'");
            }
            String sql = dialect == JdbcDialect.POSTGRESQL ? "SELECT pg_backend_pid()" : "SELECT CONNECTION_ID()";
            try (ResultSet rs = s.executeQuery(sql)) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("use getConnection()");
    }
}
