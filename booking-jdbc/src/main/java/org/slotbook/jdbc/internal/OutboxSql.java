package org.slotbook.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Attendance;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.PackageId;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.outbox.OutboxEvent;
import org.slotbook.core.outbox.OutboxStats;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.spi.OutboxStore;
import org.slotbook.jdbc.JdbcDialect;
import org.slotbook.jdbc.internal.EventPositions.Head;

/**
 * The outbox of a {@code JdbcStore}, in plain SQL (the relay's and the pull's work is not a decision:
 * a few statements in one transaction). The decision routines write the events (event_rows on
 * PostgreSQL, outbox_write on MariaDB, {@code H2Tx.recordEvents} on H2); this class gives them positions
 * and records their delivery.
 *
 * <p>Positions: events get their {@code event_id} from the identity at insert, and transactions do not
 * commit in that order. So the position, the id hosts see, is given after the commit: under the tenant's
 * {@code event_head} row (locked FOR UPDATE, a row no decision touches), the tenant's committed events
 * without a position get the next ones in event_id order. The positions of one such step commit before the
 * next step starts, so a reader that asks for the positions after its cursor never skips one. Decisions
 * of one tenant never wait for each other or for this step.
 *
 * <p>No step issues a statement per event: positions are given a batch per statement, and deliveries are
 * recorded a list per statement ({@link EventPositions}). The store's instant is read with the head's lock.
 */
public final class OutboxSql implements OutboxStore {
    private static final String COLUMNS = "pos, kind, booking_id, request_id, slot_id, student_id, seat, status,"
            + " held_until, created_at, updated_at, package_id, credits, attendance, written_at, state, attempts,"
            + " next_attempt_at, last_error, delivered_at";

    private final StoreCore core;
    private final SqlDialect sql;
    private final JdbcDialect dialect;
    private final String event;
    private final String head;
    private final String cursor;
    private final EventPositions positions;

    public OutboxSql(StoreCore core) {
        this.core = core;
        this.sql = core.sql();
        this.dialect = core.dialect();
        String prefix = core.tables().prefix();
        this.event = prefix + "event";
        this.head = prefix + "event_head";
        this.cursor = prefix + "event_cursor";
        this.positions = new EventPositions(sql, event, head);
    }

    // ------------------------------------------------------------------ positions

    private Instant now(Connection c, @Nullable Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + sql.nowOr())) {
            sql.bindInstant(ps, 1, now);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                Instant at = sql.readInstant(rs, 1);
                if (at == null) {
                    throw new SQLException("the store answered no instant");
                }
                return at;
            }
        }
    }

    /** Gives the tenant's committed events without a position the next ones and stores the last (head locked). */
    private long sequence(Connection c, TenantId tenantId, Head h) throws SQLException {
        long last = positions.sequence(c, tenantId, h.lastPos());
        if (last != h.lastPos()) {
            positions.writeLast(c, tenantId, last);
        }
        return last;
    }

    private boolean unsequenced(Connection c, TenantId tenantId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT event_id FROM " + event
                + " WHERE tenant_id = ? AND pos IS NULL LIMIT 1")) {
            ps.setString(1, tenantId.value());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    // ------------------------------------------------------------------ relay

    @Override
    public List<OutboxEvent> claim(TenantId tenantId, String relay, @Nullable Instant now, Duration lease,
                                   Duration minAge, int limit) {
        return core.transaction(tenantId, "claim outbox events", c -> {
            Head h = positions.lock(c, tenantId, now);
            Instant at = h.at();
            long last = positions.sequence(c, tenantId, h.lastPos());
            if (h.leaseOwner() != null && !h.leaseOwner().equals(relay) && h.leaseUntil() != null
                    && h.leaseUntil().isAfter(at)) {
                if (last != h.lastPos()) {
                    positions.writeLast(c, tenantId, last);
                }
                return List.of();
            }
            List<OutboxEvent> pending = select(c, tenantId, " WHERE tenant_id = ? AND pos > ? AND state = 'PENDING'"
                    + " ORDER BY pos LIMIT " + limit, ps -> ps.setLong(2, h.settledPos()));
            long settled = pending.isEmpty() ? last : pending.get(0).id() - 1;
            List<OutboxEvent> due = new ArrayList<>(pending.size());
            Instant young = at.minus(minAge);
            for (OutboxEvent e : pending) {
                if ((e.nextAttemptAt() != null && e.nextAttemptAt().isAfter(at)) || e.writtenAt().isAfter(young)) {
                    break;
                }
                due.add(e);
            }
            boolean mine = relay.equals(h.leaseOwner());
            String owner = !due.isEmpty() ? relay : mine ? null : h.leaseOwner();
            Instant until = !due.isEmpty() ? at.plus(lease) : mine ? null : h.leaseUntil();
            // the positions, the settled mark and the lease in one update, none when nothing changed
            if (last != h.lastPos() || settled != h.settledPos() || !Objects.equals(owner, h.leaseOwner())
                    || !Objects.equals(until, h.leaseUntil())) {
                try (PreparedStatement ps = c.prepareStatement("UPDATE " + head + " SET last_pos = ?, settled_pos = ?,"
                        + " lease_owner = ?, lease_until = ? WHERE tenant_id = ?")) {
                    ps.setLong(1, last);
                    ps.setLong(2, settled);
                    ps.setString(3, owner);
                    sql.bindInstant(ps, 4, until);
                    ps.setString(5, tenantId.value());
                    ps.executeUpdate();
                }
            }
            return due;
        });
    }

    @Override
    public void delivered(TenantId tenantId, String by, List<Long> ids, @Nullable Instant now) {
        core.transaction(tenantId, "record outbox events delivered", c -> {
            // the head locked first (and the store's instant read with it: Citus refuses the database's clock
            // in an update of a distributed table), then the lease given back when it is ours, then the event rows
            Head h = positions.lock(c, tenantId, now);
            if (by.equals(h.leaseOwner())) {
                try (PreparedStatement ps = c.prepareStatement("UPDATE " + head
                        + " SET lease_owner = NULL, lease_until = NULL WHERE tenant_id = ?")) {
                    ps.setString(1, tenantId.value());
                    ps.executeUpdate();
                }
            }
            positions.deliverPositions(c, tenantId, ids, h.at(), by);
            return null;
        });
    }

    /**
     * The head first, as the relay's steps take it (rows of events are then never locked in two orders); then,
     * when every key fits one statement: the count of the named events still PENDING with and without a position,
     * the record of those with one (only if any), and the positions of the others given in the same update that
     * records them. Each event is then updated once. Past one statement's list (MariaDB, H2: more than
     * {@link EventPositions#KEYS} keys) the records come first, a list at a time, and the positions after.
     */
    @Override
    public int deliveredInProcess(TenantId tenantId, String by, List<BookingEvent> events, @Nullable Instant now) {
        if (events.isEmpty()) {
            return 0;
        }
        Set<EventPositions.Key> named = new LinkedHashSet<>();
        for (BookingEvent e : events) {
            named.add(new EventPositions.Key(e.booking().bookingId().value(), e.kind().name()));
        }
        List<EventPositions.Key> keys = List.copyOf(named);
        return core.transaction(tenantId, "record outbox events delivered", c -> {
            Head h = positions.lock(c, tenantId, now);
            long last;
            int n = 0;
            if (positions.fitOneStatement(keys)) {
                long[] pending = positions.pending(c, tenantId, keys);
                if (pending[1] > 0) {
                    n += positions.deliver(c, tenantId, keys, true, h.at(), by);
                }
                last = positions.sequence(c, tenantId, h.lastPos(), pending[0] > 0 ? keys : null, h.at(), by);
                n += (int) pending[0];
            } else {
                for (List<EventPositions.Key> part : positions.chunks(keys)) {
                    n += positions.deliver(c, tenantId, part, false, h.at(), by);
                }
                last = positions.sequence(c, tenantId, h.lastPos());
            }
            if (last != h.lastPos()) {
                positions.writeLast(c, tenantId, last);
            }
            return n;
        });
    }

    @Override
    public OutboxEvent.State failed(TenantId tenantId, String relay, long id, String error, @Nullable Instant now,
                                    Duration retryAfter, int maxAttempts) {
        return core.transaction(tenantId, "record an outbox delivery failed", c -> {
            Head h = positions.lock(c, tenantId, now);
            boolean mine = relay.equals(h.leaseOwner());
            int attempts;
            String state;
            try (PreparedStatement ps = c.prepareStatement("SELECT attempts, state FROM " + event
                    + " WHERE tenant_id = ? AND pos = ?")) {
                ps.setString(1, tenantId.value());
                ps.setLong(2, id);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        attempts = rs.getInt(1);
                        state = rs.getString(2);
                    } else {
                        attempts = 0;
                        state = null;
                    }
                }
            }
            boolean dead = false;
            if ("PENDING".equals(state)) {
                attempts++;
                dead = attempts >= maxAttempts;
                try (PreparedStatement ps = c.prepareStatement("UPDATE " + event + " SET attempts = ?, state = ?,"
                        + " next_attempt_at = ?, last_error = ? WHERE tenant_id = ? AND pos = ?")) {
                    ps.setInt(1, attempts);
                    ps.setString(2, dead ? "DEAD" : "PENDING");
                    sql.bindInstant(ps, 3, dead ? null : h.at().plus(retryAfter));
                    ps.setString(4, error.length() > 500 ? error.substring(0, 500) : error);
                    ps.setString(5, tenantId.value());
                    ps.setLong(6, id);
                    ps.executeUpdate();
                }
            }
            // the lease given back and the dead letter counted in one update of the locked head
            if (mine || dead) {
                try (PreparedStatement ps = c.prepareStatement("UPDATE " + head + " SET lease_owner = ?,"
                        + " lease_until = ?, dead_count = dead_count + ? WHERE tenant_id = ?")) {
                    ps.setString(1, mine ? null : h.leaseOwner());
                    sql.bindInstant(ps, 2, mine ? null : h.leaseUntil());
                    ps.setInt(3, dead ? 1 : 0);
                    ps.setString(4, tenantId.value());
                    ps.executeUpdate();
                }
            }
            if (state == null) {
                return OutboxEvent.State.PENDING;
            }
            return dead ? OutboxEvent.State.DEAD : OutboxEvent.State.valueOf(state);
        });
    }

    @Override
    public boolean redeliver(TenantId tenantId, long id) {
        return core.transaction(tenantId, "re-deliver an outbox event", c -> {
            positions.lock(c, tenantId, null);
            int n;
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + event + " SET state = 'PENDING', attempts = 0,"
                    + " next_attempt_at = NULL WHERE tenant_id = ? AND pos = ? AND state = 'DEAD'")) {
                ps.setString(1, tenantId.value());
                ps.setLong(2, id);
                n = ps.executeUpdate();
            }
            if (n == 0) {
                return false;
            }
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + head + " SET dead_count = dead_count - 1,"
                    + " settled_pos = CASE WHEN settled_pos >= ? THEN ? ELSE settled_pos END WHERE tenant_id = ?")) {
                ps.setLong(1, id);
                ps.setLong(2, id - 1);
                ps.setString(3, tenantId.value());
                ps.executeUpdate();
            }
            return true;
        });
    }

    // ------------------------------------------------------------------ pull

    @Override
    public List<OutboxEvent> read(TenantId tenantId, long afterId, int limit) {
        return core.transaction(tenantId, "read outbox events", c -> {
            if (unsequenced(c, tenantId)) {
                sequence(c, tenantId, positions.lock(c, tenantId, null));
            }
            return select(c, tenantId, " WHERE tenant_id = ? AND pos > ? ORDER BY pos LIMIT " + limit,
                    ps -> ps.setLong(2, afterId));
        });
    }

    @Override
    public List<OutboxEvent> dead(TenantId tenantId, int limit) {
        return core.transaction(tenantId, "read dead outbox events", c -> select(c, tenantId,
                " WHERE tenant_id = ? AND state = 'DEAD' ORDER BY pos LIMIT " + limit, ps -> { }));
    }

    @Override
    public OptionalLong cursor(TenantId tenantId, String consumer) {
        return core.transaction(tenantId, "read an outbox cursor", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT pos FROM " + cursor
                    + " WHERE tenant_id = ? AND consumer = ?")) {
                ps.setString(1, tenantId.value());
                ps.setString(2, consumer);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
                }
            }
        });
    }

    @Override
    public void saveCursor(TenantId tenantId, String consumer, long id, @Nullable Instant now) {
        String upsert = switch (dialect) {
            case POSTGRESQL -> "INSERT INTO " + cursor + " (tenant_id, consumer, pos, updated_at) VALUES (?, ?, ?, "
                    + sql.nowOr() + ") ON CONFLICT (tenant_id, consumer) DO UPDATE SET pos = EXCLUDED.pos,"
                    + " updated_at = EXCLUDED.updated_at";
            case MARIADB -> "INSERT INTO " + cursor + " (tenant_id, consumer, pos, updated_at) VALUES (?, ?, ?, "
                    + sql.nowOr() + ") ON DUPLICATE KEY UPDATE pos = VALUES(pos), updated_at = VALUES(updated_at)";
            case H2 -> "MERGE INTO " + cursor + " (tenant_id, consumer, pos, updated_at) KEY (tenant_id, consumer)"
                    + " VALUES (?, ?, ?, " + sql.nowOr() + ")";
        };
        core.transaction(tenantId, "store an outbox cursor", c -> {
            try (PreparedStatement ps = c.prepareStatement(upsert)) {
                ps.setString(1, tenantId.value());
                ps.setString(2, consumer);
                ps.setLong(3, id);
                sql.bindInstant(ps, 4, now);
                ps.executeUpdate();
            }
            return null;
        });
    }

    // ------------------------------------------------------------------ upkeep

    @Override
    public OutboxStats stats(TenantId tenantId, @Nullable Instant now) {
        return core.transaction(tenantId, "read outbox stats", c -> {
            long pending;
            Instant oldest;
            Instant at;
            try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*), MIN(written_at), " + sql.nowOr()
                    + " FROM " + event + " WHERE state = 'PENDING' AND tenant_id = ?")) {
                sql.bindInstant(ps, 1, now);
                ps.setString(2, tenantId.value());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    pending = rs.getLong(1);
                    oldest = sql.readInstant(rs, 2);
                    at = sql.readInstant(rs, 3);
                }
            }
            long dead = 0;
            long last = 0;
            try (PreparedStatement ps = c.prepareStatement("SELECT dead_count, last_pos FROM " + head
                    + " WHERE tenant_id = ?")) {
                ps.setString(1, tenantId.value());
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        dead = rs.getLong(1);
                        last = rs.getLong(2);
                    }
                }
            }
            Duration age = oldest == null || at == null || oldest.isAfter(at) ? Duration.ZERO : Duration.between(oldest, at);
            return new OutboxStats(tenantId, pending, dead, oldest, age, last);
        });
    }

    @Override
    public List<TenantId> backlogTenants(@Nullable TenantId after, int limit) {
        return core.transaction(null, "list the tenants with an outbox backlog", c -> {
            List<TenantId> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT DISTINCT tenant_id FROM " + event
                    + " WHERE state = 'PENDING'" + (after == null ? "" : " AND tenant_id > ?")
                    + " ORDER BY tenant_id LIMIT " + limit)) {
                if (after != null) {
                    ps.setString(1, after.value());
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(TenantId.of(rs.getString(1)));
                    }
                }
            }
            return out;
        });
    }

    @Override
    public int purge(TenantId tenantId, Duration olderThan, @Nullable Instant now, int limit) {
        return core.transaction(tenantId, "purge delivered outbox events", c -> {
            Instant before = now(c, now).minus(olderThan);
            // the oldest events by position, those of them delivered before the horizon: an index range per call
            String delete = dialect == JdbcDialect.MARIADB
                    ? "DELETE e FROM " + event + " e JOIN (SELECT event_id FROM " + event + " WHERE tenant_id = ?"
                            + " AND pos > 0 ORDER BY pos LIMIT " + limit + ") h ON e.event_id = h.event_id"
                            + " WHERE e.tenant_id = ? AND e.state = 'DELIVERED' AND e.delivered_at < ?"
                    : "DELETE FROM " + event + " WHERE tenant_id = ? AND event_id IN (SELECT event_id FROM " + event
                            + " WHERE tenant_id = ? AND pos > 0 ORDER BY pos LIMIT " + limit + ")"
                            + " AND state = 'DELIVERED' AND delivered_at < ?";
            try (PreparedStatement ps = c.prepareStatement(delete)) {
                ps.setString(1, tenantId.value());
                ps.setString(2, tenantId.value());
                sql.bindInstant(ps, 3, before);
                return ps.executeUpdate();
            }
        });
    }

    // ------------------------------------------------------------------ rows

    @FunctionalInterface
    private interface Bind {
        void bind(PreparedStatement ps) throws SQLException;
    }

    /** The events of {@code where} (its first parameter the tenant, the others bound by {@code more}). */
    private List<OutboxEvent> select(Connection c, TenantId tenantId, String where, Bind more) throws SQLException {
        List<OutboxEvent> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM " + event + where)) {
            ps.setString(1, tenantId.value());
            more.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(read(rs, tenantId));
                }
            }
        }
        return out;
    }

    private OutboxEvent read(ResultSet rs, TenantId tenantId) throws SQLException {
        String pkg = rs.getString(12);
        Booking booking = new Booking(tenantId, BookingId.of(rs.getString(3)), RequestId.of(rs.getString(4)),
                SlotId.of(rs.getString(5)), StudentId.of(rs.getString(6)), rs.getInt(7),
                BookingStatus.valueOf(rs.getString(8)), sql.readInstant(rs, 9), sql.readInstant(rs, 10),
                sql.readInstant(rs, 11), pkg == null ? null : PackageId.of(pkg), rs.getInt(13),
                Attendance.valueOf(rs.getString(14)));
        return new OutboxEvent(tenantId, rs.getLong(1), BookingEvent.Kind.valueOf(rs.getString(2)), booking,
                sql.readInstant(rs, 15), OutboxEvent.State.valueOf(rs.getString(16)), rs.getInt(17),
                sql.readInstant(rs, 18), rs.getString(19), sql.readInstant(rs, 20));
    }
}
