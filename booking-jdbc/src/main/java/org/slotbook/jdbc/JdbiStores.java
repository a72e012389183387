package org.slotbook.jdbc;

import org.jdbi.v3.core.Jdbi;
import org.slotbook.core.InvalidInputException;
import org.slotbook.jdbc.internal.JdbiConnections;

/**
 * {@link JdbcStore}s on a host's {@link Jdbi}, for hosts that use Jdbi: each call of the store opens
 * a Jdbi handle, so the host's connection factory and handle listeners see it. Jdbi is an optional
 * dependency of booking-jdbc, so this class, the only one that names it, needs Jdbi on the host's
 * class path; a host without Jdbi uses {@link JdbcStore#create(javax.sql.DataSource)}.
 */
public final class JdbiStores {
    private JdbiStores() {
    }

    /**
     * A store on the host's Jdbi, tables prefixed {@code slotbook_}, dialect detected.
     *
     * @param jdbi the host's Jdbi, on the database whose schema {@link JdbcSchema} installed
     * @return the store
     * @throws org.slotbook.core.BookingStoreException when the database cannot be reached to detect the dialect
     */
    public static JdbcStore create(Jdbi jdbi) {
        return builder(jdbi).build();
    }

    /**
     * A builder of a store on the host's Jdbi, for another table prefix, dialect or retry setting.
     *
     * @param jdbi the host's Jdbi, on the database whose schema {@link JdbcSchema} installed
     * @return the builder, set as {@link #create(Jdbi)} would build
     */
    public static JdbcStore.Builder builder(Jdbi jdbi) {
        if (jdbi == null) {
            throw new InvalidInputException("jdbi must not be null");
        }
        return JdbcStore.builder(new JdbiConnections(jdbi));
    }
}
