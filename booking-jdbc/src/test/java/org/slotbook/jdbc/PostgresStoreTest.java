package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.CoachId;
import org.slotbook.core.ResourceKind;
import org.slotbook.core.RoomId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.SlotId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

class PostgresStoreTest extends JdbcStoreTests {
    @Override
    protected TestDatabase openDatabase() {
        return TestDatabases.postgres();
    }

    @Override
    protected String blockedHoldQuery() {
        return "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%" + db.prefix()
                + "hold(%' AND pid <> pg_backend_pid()";
    }

    @Override
    protected void kill(long id) {
        boolean killed = sql.withHandle(h -> h.createQuery("SELECT pg_terminate_backend(:pid)")
                .bind("pid", (int) id).mapTo(Boolean.class).one());
        if (!killed) {
            throw new IllegalStateException("backend " + id + " was not terminated");
        }
    }

    @Test
    void createAloneDoesNotAddTheExclusionConstraint() {
        String prefix = TestDatabases.freshPrefix();
        try {
            JdbcSchema.create(db.dataSource(), prefix);
            assertThat(count("SELECT COUNT(*) FROM pg_class WHERE relname = ?", prefix + "occupancy"))
                    .as("tables created").isEqualTo(1);
            assertThat(count("SELECT COUNT(*) FROM pg_constraint WHERE conname = ?", prefix + "occupancy_no_overlap"))
                    .as("no exclusion constraint without asking for it").isZero();
            assertThat(count("SELECT COUNT(*) FROM pg_constraint WHERE contype = 'x' AND conrelid = to_regclass(?)",
                    prefix + "occupancy")).as("no exclusion constraint of any name").isZero();
            JdbcSchema.createExclusionBackstop(db.dataSource(), prefix);
            JdbcSchema.createExclusionBackstop(db.dataSource(), prefix); // idempotent
            assertThat(count("SELECT COUNT(*) FROM pg_constraint WHERE conname = ?", prefix + "occupancy_no_overlap"))
                    .as("added when asked for").isEqualTo(1);
        } finally {
            TestDatabases.dropSchema(db.dataSource(), JdbcDialect.POSTGRESQL, prefix);
        }
    }

    @Test
    void theExclusionConstraintRefusesAnOverlapTheLockPathWasToldToMiss() {
        JdbcSchema.createExclusionBackstop(db.dataSource(), db.prefix());
        assertThat(count("SELECT COUNT(*) FROM pg_constraint WHERE conname = ?", db.table("occupancy_no_overlap")))
                .as("btree_gist exclusion constraint installed").isEqualTo(1);
        TenantId t = tenant();
        Slot longSession = new Slot(t, SlotId.of("long"), CoachId.of("long-sessions"), RoomId.of("r1"),
                TimeRange.of(T0, Duration.ofHours(5)), 1, SlotStatus.OPEN);
        schedule(longSession);
        // a caller that understates the longest session makes the overlap query start too late
        Slot late = new Slot(t, SlotId.of("short"), CoachId.of("long-sessions"), RoomId.of("r2"),
                TimeRange.of(T0.plus(Duration.ofHours(3)), HOUR), 1, SlotStatus.OPEN);
        assertThatThrownBy(() -> store.schedule(t, late, HOUR, java.time.ZoneOffset.UTC))
                .isInstanceOf(BookingStoreException.class).hasMessageContaining("23P01");
        assertThat(activeOccupations(t, ResourceKind.COACH)).isEqualTo(1);
    }
}
