package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.CoachId;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.Scheduled;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * {@link JdbcSchema#drop} on one database: it removes every table and routine {@code create} made
 * under the prefix, read back from the database's catalog, and nothing of another prefix; a second
 * drop finds nothing to do, and {@code create} afterwards gives a store that works.
 */
abstract class JdbcSchemaDropTests {
    static final Set<String> TABLES = Set.of("slot", "slot_seat", "booking", "occupancy", "resource_lock",
            "waiter");
    static final Set<String> DECISIONS = Set.of("schedule", "hold", "confirm", "cancel", "cancel_slot",
            "expire_due", "leave_waitlist", "grant_package", "check_in", "schedule_series", "cancel_series", "hold_all");

    /** A database with the schema created under a fresh prefix; the test closes it. */
    protected abstract TestDatabase openDatabase();

    /** Adds under the prefix what an older release may have left there, which drop must remove too; nothing here. */
    protected void leaveStaleRoutines(TestDatabase db) throws SQLException {
    }

    @Test
    void dropRemovesWhatCreateMadeAndNothingOfAnotherPrefix() throws SQLException {
        try (TestDatabase db = openDatabase()) {
            leaveStaleRoutines(db);
            createDropDropCreate(db);
        }
    }

    private static void createDropDropCreate(TestDatabase db) throws SQLException {
        String prefix = db.prefix();
        String other = TestDatabases.freshPrefix();
        JdbcSchema.create(db.dataSource(), other);
        try {
            Set<String> tables = tables(db, prefix);
            Set<String> routines = routines(db, prefix);
            assertThat(tables).containsAll(TABLES);
            assertThat(routines).containsAll(DECISIONS);

            JdbcSchema.drop(db.dataSource(), prefix);
            assertThat(tables(db, prefix)).as("tables after drop").isEmpty();
            assertThat(routines(db, prefix)).as("routines after drop").isEmpty();
            assertThat(tables(db, other)).as("another prefix's tables").isEqualTo(tables);
            assertThat(routines(db, other)).as("another prefix's routines").containsAll(DECISIONS);

            JdbcSchema.drop(db.dataSource(), prefix);
            assertThat(tables(db, prefix)).as("tables after a second drop").isEmpty();

            JdbcSchema.create(db.dataSource(), prefix);
            assertThat(tables(db, prefix)).isEqualTo(tables);
            assertThat(routines(db, prefix)).containsAll(DECISIONS);
            BookingEngine engine = BookingEngine.builder().store(db.store()).build();
            TenantId tenant = TenantId.of("dropped-and-back");
            SlotSpec spec = new SlotSpec(SlotId.of("yoga"), CoachId.of("ana"), RoomId.of("studio"),
                    TimeRange.of(Instant.now().plus(Duration.ofDays(1)).truncatedTo(ChronoUnit.HOURS),
                            Duration.ofHours(1)), 1);
            assertThat(engine.schedule(tenant, spec)).isInstanceOf(Scheduled.class);
            assertThat(engine.hold(tenant, HoldRequest.of(RequestId.random(), spec.slotId(), StudentId.of("li"))))
                    .isInstanceOf(Held.class);
        } finally {
            JdbcSchema.drop(db.dataSource(), other);
        }
        assertThat(tables(db, other)).isEmpty();
        assertThat(routines(db, other)).isEmpty();
    }

    /** The tables of {@code prefix} in the catalog, without the prefix. */
    static Set<String> tables(TestDatabase db, String prefix) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
             ResultSet rs = c.getMetaData().getTables(c.getCatalog(), null, "%", new String[] {"TABLE"})) {
            return names(rs, "TABLE_NAME", prefix);
        }
    }

    /** The routines of {@code prefix} in the catalog (the current schema or database), without the prefix. */
    static Set<String> routines(TestDatabase db, String prefix) throws SQLException {
        String sql = switch (db.dialect()) {
            case H2 -> "SELECT ROUTINE_NAME FROM INFORMATION_SCHEMA.ROUTINES";
            case MARIADB -> "SELECT ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE()";
            case POSTGRESQL -> "SELECT p.proname AS ROUTINE_NAME FROM pg_proc p JOIN pg_namespace n"
                    + " ON n.oid = p.pronamespace WHERE n.nspname = current_schema()";
        };
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(sql)) {
            return names(rs, "ROUTINE_NAME", prefix);
        }
    }

    private static Set<String> names(ResultSet rs, String column, String prefix) throws SQLException {
        Set<String> names = new TreeSet<>();
        while (rs.next()) {
            String name = rs.getString(column).toLowerCase(Locale.ROOT);
            if (name.startsWith(prefix)) {
                names.add(name.substring(prefix.length()));
            }
        }
        return names;
    }
}
