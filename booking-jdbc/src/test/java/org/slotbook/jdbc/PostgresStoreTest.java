package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.CoachId;
import org.slotbook.core.ResourceKind;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.SlotId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.Occupation;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

class PostgresStoreTest extends JdbcStoreTests {
    @Override
    protected TestDatabase openDatabase() {
        return TestDatabases.postgres();
    }

    @Override
    protected String connectionIdQuery() {
        return "SELECT pg_backend_pid()";
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
    void theExclusionConstraintRefusesAnOverlapTheLockPathWasToldToMiss() {
        assertThat(count("SELECT COUNT(*) FROM pg_constraint WHERE conname = ?", db.table("occupancy_no_overlap")))
                .as("btree_gist exclusion constraint installed").isEqualTo(1);
        TenantId t = tenant();
        ResourceRef coach = ResourceRef.of(CoachId.of("long-sessions"));
        occupy(t, coach, TimeRange.of(T0, Duration.ofHours(5)), "long", null, true);
        // a caller that understates the longest session makes the overlap query start too late
        assertThatThrownBy(() -> ledger.inTransaction(t, tx -> conflicts.occupy(tx, new Occupation(List.of(coach),
                TimeRange.of(T0.plus(Duration.ofHours(3)), HOUR), SlotId.of("short"), null), HOUR)))
                .isInstanceOf(BookingStoreException.class).hasMessageContaining("23P01");
        assertThat(activeOccupations(t, ResourceKind.COACH)).isEqualTo(1);
    }
}
