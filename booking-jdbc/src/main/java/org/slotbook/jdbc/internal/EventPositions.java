package org.slotbook.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.TenantId;
import org.slotbook.jdbc.JdbcDialect;

/**
 * The outbox's set-wise statements: the tenant's head, locked first; positions given to a batch of events in
 * one statement; deliveries recorded by booking and kind, or by position, in one statement per list.
 *
 * <p>Positions: one statement numbers up to {@link #BATCH} of the tenant's events without a position, in
 * event_id order, after the last one given ({@code row_number()} over the batch read in the same statement,
 * so the batch and its numbers cannot disagree); the affected row count says how many, hence the new last.
 * PostgreSQL {@code UPDATE ... FROM}, MariaDB a join with the derived batch, H2 {@code MERGE ... USING}.
 * Only the holder of the head's lock gives positions, so the batch is exactly the rows the update changes.
 *
 * <p>Keys (booking and kind): PostgreSQL binds them as two arrays (one statement text whatever their number);
 * MariaDB and H2 as a list of row values, at most {@link #KEYS} a statement. Every statement names the tenant.
 */
final class EventPositions {
    /** The most events one statement gives positions to. */
    static final int BATCH = 1000;
    /** The most keys or positions in one statement's list of values (MariaDB, H2). */
    static final int KEYS = 1000;

    private final SqlDialect sql;
    private final JdbcDialect dialect;
    private final String event;
    private final String head;

    EventPositions(SqlDialect sql, String event, String head) {
        this.sql = sql;
        this.dialect = sql.dialect();
        this.event = event;
        this.head = head;
    }

    /** A recorded delivery's event, named as the deciding node knows it. */
    record Key(String bookingId, String kind) {
    }

    /** The tenant's head row as locked, with the store's instant (or the given one). */
    record Head(long lastPos, long settledPos, @Nullable String leaseOwner, @Nullable Instant leaseUntil, Instant at) {
    }

    // ------------------------------------------------------------------ head

    /** The tenant's head row, locked, and the instant {@code now} or the store's clock; created when missing. */
    Head lock(Connection c, TenantId tenantId, @Nullable Instant now) throws SQLException {
        Head h = readHead(c, tenantId, now);
        if (h != null) {
            return h;
        }
        String insert = switch (dialect) {
            case POSTGRESQL -> "INSERT INTO " + head + " (tenant_id) VALUES (?) ON CONFLICT DO NOTHING";
            case MARIADB -> "INSERT IGNORE INTO " + head + " (tenant_id) VALUES (?)";
            case H2 -> "MERGE INTO " + head + " (tenant_id) KEY (tenant_id) VALUES (?)";
        };
        try (PreparedStatement ps = c.prepareStatement(insert)) {
            ps.setString(1, tenantId.value());
            ps.executeUpdate();
        }
        Head created = readHead(c, tenantId, now);
        if (created == null) {
            throw new SQLException("the outbox head of tenant " + tenantId + " is missing right after its insert");
        }
        return created;
    }

    private @Nullable Head readHead(Connection c, TenantId tenantId, @Nullable Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT last_pos, settled_pos, lease_owner, lease_until, "
                + sql.nowOr() + " FROM " + head + " WHERE tenant_id = ? FOR UPDATE")) {
            sql.bindInstant(ps, 1, now);
            ps.setString(2, tenantId.value());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                Instant at = sql.readInstant(rs, 5);
                if (at == null) {
                    throw new SQLException("the store answered no instant");
                }
                return new Head(rs.getLong(1), rs.getLong(2), rs.getString(3), sql.readInstant(rs, 4), at);
            }
        }
    }

    /** Stores the last position given (the head is locked). */
    void writeLast(Connection c, TenantId tenantId, long last) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + head + " SET last_pos = ? WHERE tenant_id = ?")) {
            ps.setLong(1, last);
            ps.setString(2, tenantId.value());
            ps.executeUpdate();
        }
    }

    // ------------------------------------------------------------------ positions

    /** {@link #sequence(Connection, TenantId, long, List, Instant, String)} recording no delivery. */
    long sequence(Connection c, TenantId tenantId, long last) throws SQLException {
        return sequence(c, tenantId, last, null, null, null);
    }

    /**
     * Gives the tenant's events without a position the ones after {@code last}, in event_id order, one statement
     * per {@link #BATCH}; those of {@code keys} (when given: all of them in one statement's list) are recorded
     * DELIVERED by {@code by} at {@code at} in the same update. Answers the last position given. The head is
     * locked; the caller stores the new last.
     */
    long sequence(Connection c, TenantId tenantId, long last, @Nullable List<Key> keys, @Nullable Instant at,
                  @Nullable String by) throws SQLException {
        long top = last;
        while (true) {
            Stmt s = sequenceStatement(tenantId, top, keys, at, by);
            int n;
            try (PreparedStatement ps = c.prepareStatement(s.text())) {
                s.bind(c, ps);
                n = ps.executeUpdate();
            }
            top += n;
            if (n < BATCH) {
                return top;
            }
        }
    }

    private Stmt sequenceStatement(TenantId tenantId, long last, @Nullable List<Key> keys, @Nullable Instant at,
                                   @Nullable String by) {
        String base = dialect == JdbcDialect.MARIADB ? "CAST(? AS SIGNED)" : "CAST(? AS BIGINT)";
        Stmt batch = new Stmt().add("SELECT u.tenant_id, u.event_id, " + base + " + ROW_NUMBER() OVER"
                + " (ORDER BY u.event_id) AS pos", last);
        if (keys != null) {
            batch.add(", u.state = 'PENDING' AND ").keys("u", keys).add(" AS mark");
        }
        batch.add(" FROM (SELECT tenant_id, event_id, booking_id, kind, state FROM " + event
                + " WHERE tenant_id = ? AND pos IS NULL ORDER BY event_id LIMIT " + BATCH + ") u", tenantId.value());
        String prefix = dialect == JdbcDialect.MARIADB ? "e." : "";
        Stmt set = new Stmt().add(prefix + "pos = s.pos");
        if (keys != null) {
            // the new values depend on the batch's row alone (MariaDB assigns left to right)
            set.add(", " + prefix + "delivered_at = CASE WHEN s.mark THEN ? ELSE e.delivered_at END", at)
                    .add(", " + prefix + "delivered_by = CASE WHEN s.mark THEN ? ELSE e.delivered_by END", by)
                    .add(", " + prefix + "state = CASE WHEN s.mark THEN 'DELIVERED' ELSE e.state END");
        }
        return switch (dialect) {
            case POSTGRESQL -> new Stmt().add("UPDATE " + event + " e SET ").add(set).add(" FROM (").add(batch)
                    .add(") s WHERE e.tenant_id = ? AND e.tenant_id = s.tenant_id AND e.event_id = s.event_id",
                            tenantId.value());
            case MARIADB -> new Stmt().add("UPDATE " + event + " e JOIN (").add(batch)
                    .add(") s ON e.event_id = s.event_id AND e.tenant_id = s.tenant_id SET ").add(set)
                    .add(" WHERE e.tenant_id = ?", tenantId.value());
            case H2 -> new Stmt().add("MERGE INTO " + event + " e USING (").add(batch)
                    .add(") s ON e.tenant_id = ? AND e.tenant_id = s.tenant_id AND e.event_id = s.event_id",
                            tenantId.value())
                    .add(" WHEN MATCHED THEN UPDATE SET ").add(set);
        };
    }

    // ------------------------------------------------------------------ deliveries

    /** Whether {@code keys} fit one statement's list (PostgreSQL: always). */
    boolean fitOneStatement(Collection<Key> keys) {
        return dialect == JdbcDialect.POSTGRESQL || keys.size() <= KEYS;
    }

    /** {@code keys} in lists of at most {@link #KEYS} (PostgreSQL: one). */
    List<List<Key>> chunks(List<Key> keys) {
        if (fitOneStatement(keys)) {
            return List.of(keys);
        }
        List<List<Key>> out = new ArrayList<>();
        for (int i = 0; i < keys.size(); i += KEYS) {
            out.add(keys.subList(i, Math.min(keys.size(), i + KEYS)));
        }
        return out;
    }

    /** How many PENDING events of {@code keys} have no position yet, and how many have one. */
    long[] pending(Connection c, TenantId tenantId, List<Key> keys) throws SQLException {
        Stmt s = new Stmt().add("SELECT SUM(CASE WHEN e.pos IS NULL THEN 1 ELSE 0 END), SUM(CASE WHEN e.pos IS NULL"
                + " THEN 0 ELSE 1 END) FROM " + event + " e WHERE e.tenant_id = ? AND e.state = 'PENDING' AND ",
                tenantId.value()).keys("e", keys);
        try (PreparedStatement ps = c.prepareStatement(s.text())) {
            s.bind(c, ps);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new long[] {rs.getLong(1), rs.getLong(2)};
            }
        }
    }

    /**
     * Records the PENDING events of {@code keys} DELIVERED by {@code by} at {@code at} ({@code positioned}: only
     * those with a position); answers how many.
     */
    int deliver(Connection c, TenantId tenantId, List<Key> keys, boolean positioned, Instant at, String by)
            throws SQLException {
        Stmt s = new Stmt().add("UPDATE " + event + " e SET state = 'DELIVERED', delivered_at = ?", at)
                .add(", delivered_by = ?", by)
                .add(" WHERE e.tenant_id = ? AND e.state = 'PENDING'" + (positioned ? " AND e.pos IS NOT NULL" : "")
                        + " AND ", tenantId.value()).keys("e", keys);
        try (PreparedStatement ps = c.prepareStatement(s.text())) {
            s.bind(c, ps);
            return ps.executeUpdate();
        }
    }

    /**
     * Records the events at {@code positions} DELIVERED by {@code by} at {@code at},
     * unless already DELIVERED: one statement per {@link #KEYS} positions (PostgreSQL: one), each an index range
     * of positions ("not DELIVERED" rather than "PENDING": a claimed event is PENDING, and the partial index of
     * the pending events then never looks like a way to find a position, a scan of the whole backlog).
     */
    void deliverPositions(Connection c, TenantId tenantId, List<Long> positions, Instant at, String by)
            throws SQLException {
        int step = dialect == JdbcDialect.POSTGRESQL ? Math.max(1, positions.size()) : KEYS;
        for (int i = 0; i < positions.size(); i += step) {
            List<Long> part = positions.subList(i, Math.min(positions.size(), i + step));
            long low = Long.MAX_VALUE;
            long high = Long.MIN_VALUE;
            for (long p : part) {
                low = Math.min(low, p);
                high = Math.max(high, p);
            }
            Stmt s = new Stmt().add("UPDATE " + event + " SET state = 'DELIVERED', delivered_at = ?", at)
                    .add(", delivered_by = ?", by)
                    .add(" WHERE tenant_id = ?", tenantId.value()).add(" AND pos BETWEEN ?", low).add(" AND ?", high);
            if (dialect == JdbcDialect.POSTGRESQL) {
                s.add(" AND pos = ANY(CAST(? AS bigint[]))", new Array("bigint", part.toArray(new Long[0])));
            } else {
                s.add(" AND pos IN (");
                for (int j = 0; j < part.size(); j++) {
                    s.add(j == 0 ? "?" : ", ?", part.get(j));
                }
                s.add(")");
            }
            s.add(" AND state <> 'DELIVERED'");
            try (PreparedStatement ps = c.prepareStatement(s.text())) {
                s.bind(c, ps);
                ps.executeUpdate();
            }
        }
    }

    // ------------------------------------------------------------------ statements

    /** An array parameter (PostgreSQL). */
    private record Array(String type, Object[] values) {
    }

    /** A marker for an instant parameter, bound as the dialect binds instants. */
    private record At(@Nullable Instant value) {
    }

    /** SQL text and its parameters, in the order of their markers. */
    private final class Stmt {
        private final StringBuilder text = new StringBuilder();
        private final List<Object> params = new ArrayList<>();

        Stmt add(String sqlText, @Nullable Object... values) {
            text.append(sqlText);
            for (Object v : values) {
                params.add(v instanceof Instant i ? new At(i) : v);
            }
            return this;
        }

        Stmt add(Stmt other) {
            text.append(other.text);
            params.addAll(other.params);
            return this;
        }

        /** "(alias.booking_id, alias.kind) IN (...)" over {@code keys}. */
        Stmt keys(String alias, List<Key> keys) {
            text.append('(').append(alias).append(".booking_id, ").append(alias).append(".kind) IN (");
            if (dialect == JdbcDialect.POSTGRESQL) {
                String[] bookings = new String[keys.size()];
                String[] kinds = new String[keys.size()];
                for (int i = 0; i < keys.size(); i++) {
                    bookings[i] = keys.get(i).bookingId();
                    kinds[i] = keys.get(i).kind();
                }
                text.append("SELECT * FROM unnest(CAST(? AS varchar[]), CAST(? AS varchar[]))");
                params.add(new Array("varchar", bookings));
                params.add(new Array("varchar", kinds));
            } else {
                for (int i = 0; i < keys.size(); i++) {
                    text.append(i == 0 ? "(?, ?)" : ", (?, ?)");
                    params.add(keys.get(i).bookingId());
                    params.add(keys.get(i).kind());
                }
            }
            text.append(')');
            return this;
        }

        String text() {
            return text.toString();
        }

        void bind(Connection c, PreparedStatement ps) throws SQLException {
            for (int i = 0; i < params.size(); i++) {
                Object p = params.get(i);
                if (p instanceof At at) {
                    sql.bindInstant(ps, i + 1, at.value());
                } else if (p instanceof Array a) {
                    ps.setArray(i + 1, c.createArrayOf(a.type(), a.values()));
                } else if (p instanceof Long l) {
                    ps.setLong(i + 1, l);
                } else {
                    ps.setString(i + 1, (String) p);
                }
            }
        }
    }
}
