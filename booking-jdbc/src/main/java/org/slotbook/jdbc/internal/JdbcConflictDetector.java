package org.slotbook.jdbc.internal;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.statement.Query;
import org.jdbi.v3.core.statement.Update;
import org.slotbook.core.BookingId;
import org.slotbook.core.ResourceConflict;
import org.slotbook.core.ResourceKind;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.SlotId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.ConflictDetector;
import org.slotbook.core.spi.Occupation;
import org.slotbook.core.spi.StoreTransaction;
import org.slotbook.jdbc.JdbcDialect;

/**
 * Lock, check, write. Every transaction that occupies a resource first locks the resource's row in
 * {@code resource_lock} (created on first use), in one global order, so the overlap query and the
 * insert that follow cannot race with another transaction on the same coach, room or student.
 */
public final class JdbcConflictDetector implements ConflictDetector {
    private final StoreCore core;
    private final JdbcDialect dialect;
    private final Times times;
    private final String occupancy;
    private final String insertLock;
    private final String selectLock;
    private final String active;

    public JdbcConflictDetector(StoreCore core) {
        this.core = core;
        this.dialect = core.dialect();
        this.times = core.times();
        this.occupancy = core.tables().occupancy();
        String lock = core.tables().lock();
        this.insertLock = switch (dialect) {
            case POSTGRESQL -> "INSERT INTO " + lock + " (tenant_id, resource_kind, resource_id)"
                    + " VALUES (:t, :kind, :id) ON CONFLICT DO NOTHING";
            // not INSERT IGNORE: on a duplicate it takes a shared lock, and two of those upgraded by
            // the FOR UPDATE that follows deadlock
            case MARIADB -> "INSERT INTO " + lock + " (tenant_id, resource_kind, resource_id)"
                    + " VALUES (:t, :kind, :id) ON DUPLICATE KEY UPDATE resource_id = resource_id";
            case H2 -> "MERGE INTO " + lock + " (tenant_id, resource_kind, resource_id)"
                    + " KEY (tenant_id, resource_kind, resource_id) VALUES (:t, :kind, :id)";
        };
        this.selectLock = "SELECT resource_id FROM " + lock
                + " WHERE tenant_id = :t AND resource_kind = :kind AND resource_id = :id FOR UPDATE";
        // PostgreSQL's partial indexes are declared WHERE active; the others index the column
        this.active = dialect == JdbcDialect.POSTGRESQL ? "active" : "active = TRUE";
    }

    @Override
    public void lock(StoreTransaction t, Collection<ResourceRef> resources) {
        JdbcTx tx = core.tx(t);
        if (resources == null) {
            throw new IllegalArgumentException("resources must not be null");
        }
        for (ResourceRef resource : resources) {
            if (resource == null) {
                throw new IllegalArgumentException("resources must not contain null, got " + resources);
            }
        }
        for (ResourceRef resource : new TreeSet<>(resources)) {
            if (!tx.markLocked(resource)) {
                continue;
            }
            core.step(tx, "lock " + resource, h -> {
                // the row exists after the first use: one locking read; else create it, then lock it
                if (lockRow(tx, h, resource).isEmpty()) {
                    ensureLockRow(tx, h, resource);
                    lockRow(tx, h, resource).orElseThrow();
                }
                return null;
            });
        }
    }

    private Optional<String> lockRow(JdbcTx tx, Handle h, ResourceRef resource) {
        return h.createQuery(selectLock)
                .bind("t", tx.tenantId().value()).bind("kind", resource.kind().name()).bind("id", resource.id())
                .mapTo(String.class)
                .findOne();
    }

    private void ensureLockRow(JdbcTx tx, Handle h, ResourceRef resource) {
        Update insert = h.createUpdate(insertLock)
                .bind("t", tx.tenantId().value()).bind("kind", resource.kind().name()).bind("id", resource.id());
        if (dialect != JdbcDialect.H2) {
            insert.execute();
            return;
        }
        try {
            insert.execute();
        } catch (JdbiException e) {
            // two first uses at once: the other one created the row, which is all we need
            if (!SqlErrors.isUniqueViolation(dialect, e)) {
                throw e;
            }
        }
    }

    @Override
    public List<ResourceConflict> occupy(StoreTransaction t, Occupation occupation, Duration longestSession) {
        JdbcTx tx = core.tx(t);
        if (occupation == null) {
            throw new IllegalArgumentException("occupation must not be null");
        }
        if (longestSession == null || longestSession.isZero() || longestSession.isNegative()) {
            throw new IllegalArgumentException("longestSession must be positive, got " + longestSession);
        }
        lock(tx, occupation.resources());
        List<ResourceRef> resources = List.copyOf(new TreeSet<>(occupation.resources()));
        TimeRange time = occupation.time();
        List<ResourceConflict> conflicts = core.step(tx, "check the occupations of " + resources,
                h -> overlaps(tx, h, resources, time, longestSession));
        if (!conflicts.isEmpty()) {
            return conflicts;
        }
        core.step(tx, "write the occupations of " + resources, h -> {
            StringBuilder sql = new StringBuilder("INSERT INTO ").append(occupancy)
                    .append(" (tenant_id, resource_kind, resource_id, starts_at, ends_at, slot_id, booking_id, active)")
                    .append(" VALUES ");
            for (int i = 0; i < resources.size(); i++) {
                sql.append(i == 0 ? "" : ", ")
                        .append("(:t, :kind").append(i).append(", :id").append(i)
                        .append(", :start, :end, :slot, :booking, TRUE)");
            }
            Update insert = h.createUpdate(sql.toString())
                    .bind("t", tx.tenantId().value())
                    .bind("start", times.arg(time.start()))
                    .bind("end", times.arg(time.end()))
                    .bind("slot", occupation.slotId().value())
                    .bind("booking", occupation.bookingId() == null ? null : occupation.bookingId().value());
            for (int i = 0; i < resources.size(); i++) {
                insert.bind("kind" + i, resources.get(i).kind().name()).bind("id" + i, resources.get(i).id());
            }
            return insert.execute();
        });
        return List.of();
    }

    /** Active occupations of any of the resources overlapping {@code time}, in one statement. */
    private List<ResourceConflict> overlaps(JdbcTx tx, Handle h, List<ResourceRef> resources, TimeRange time,
                                            Duration longestSession) {
        StringBuilder sql = new StringBuilder("SELECT resource_kind, resource_id, slot_id, booking_id, starts_at,")
                .append(" ends_at FROM ").append(occupancy).append(" WHERE tenant_id = :t AND (");
        for (int i = 0; i < resources.size(); i++) {
            sql.append(i == 0 ? "" : " OR ")
                    .append("(resource_kind = :kind").append(i).append(" AND resource_id = :id").append(i).append(')');
        }
        sql.append(") AND ").append(active)
                .append(" AND starts_at < :end AND ends_at > :start AND starts_at > :lowest")
                .append(" ORDER BY resource_kind, resource_id, starts_at");
        Query query = h.createQuery(sql.toString())
                .bind("t", tx.tenantId().value())
                .bind("start", times.arg(time.start()))
                .bind("end", times.arg(time.end()))
                .bind("lowest", times.arg(time.start().minus(longestSession)));
        for (int i = 0; i < resources.size(); i++) {
            query.bind("kind" + i, resources.get(i).kind().name()).bind("id" + i, resources.get(i).id());
        }
        return query.map((rs, ctx) -> {
            String booking = rs.getString("booking_id");
            return new ResourceConflict(
                    new ResourceRef(ResourceKind.valueOf(rs.getString("resource_kind")), rs.getString("resource_id")),
                    SlotId.of(rs.getString("slot_id")),
                    Optional.ofNullable(booking).map(BookingId::of),
                    TimeRange.of(times.read(rs, "starts_at"), times.read(rs, "ends_at")));
        }).list();
    }

    @Override
    public int releaseBooking(StoreTransaction t, BookingId bookingId) {
        JdbcTx tx = core.tx(t);
        if (bookingId == null) {
            throw new IllegalArgumentException("bookingId must not be null");
        }
        return core.step(tx, "release the occupation of booking " + bookingId, h -> h.createUpdate("UPDATE "
                        + occupancy + " SET active = FALSE WHERE tenant_id = :t AND booking_id = :b AND " + active)
                .bind("t", tx.tenantId().value()).bind("b", bookingId.value())
                .execute());
    }

    @Override
    public int releaseSlot(StoreTransaction t, SlotId slotId) {
        JdbcTx tx = core.tx(t);
        if (slotId == null) {
            throw new IllegalArgumentException("slotId must not be null");
        }
        return core.step(tx, "release the occupations of slot " + slotId, h -> h.createUpdate("UPDATE "
                        + occupancy + " SET active = FALSE WHERE tenant_id = :t AND slot_id = :slot AND " + active)
                .bind("t", tx.tenantId().value()).bind("slot", slotId.value())
                .execute());
    }
}
