package org.slotbook.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.jspecify.annotations.Nullable;
import org.slotbook.jdbc.JdbcDialect;

/**
 * All SQL text of one database, in one place: how to call each decision routine, the reads, how an
 * instant is bound and read, and what an error means. One instance per store (the table prefix is
 * part of every name).
 */
public abstract class SqlDialect {
    /** The booking columns every booking read carries, in this order (12). */
    static final String BOOKING_COLUMNS = "booking_id, request_id, slot_id, student_id, seat, status, held_until,"
            + " created_at, updated_at, package_id, credits, attendance";
    /** The slot columns every slot read carries, in this order (16). */
    static final String SLOT_COLUMNS = "slot_id, coach_id, room_id, starts_at, ends_at, capacity, status, opens_at,"
            + " closes_at, buffer_seconds, cancel_policy, cancel_cutoff_seconds, buffer_students, class_type, cost,"
            + " series_id";
    /** The package columns of a read, in this order (8). */
    static final String PACKAGE_COLUMNS = "package_id, student_id, credits, remaining, valid_from, valid_until,"
            + " class_types, granted_at";
    /** The journal columns of a read, in this order (7). */
    static final String CREDIT_COLUMNS = "seq, package_id, reason, delta, booking_id, request_id, at";
    /** The waitlist columns of a read, in this order (7), before the position. */
    static final String WAITER_COLUMNS = "booking_id, request_id, slot_id, student_id, status, reason, joined_at";

    protected final Tables tables;
    protected final String prefix;
    private final JdbcDialect dialect;
    private final String callVerb;
    private final int leadingParams;
    private final String nowOr;

    /**
     * @param callVerb what precedes the routine's name in {@link #call} ({@code CALL } or {@code SELECT * FROM })
     * @param leadingParams how many parameters {@link #bindPrefix} binds before the routine's own
     * @param nowOr SQL for "the given instant, or the database's clock when it is null" (one bound parameter)
     */
    protected SqlDialect(Tables tables, JdbcDialect dialect, String callVerb, int leadingParams, String nowOr) {
        this.tables = tables;
        this.prefix = tables.prefix();
        this.dialect = dialect;
        this.callVerb = callVerb;
        this.leadingParams = leadingParams;
        this.nowOr = nowOr;
    }

    public static SqlDialect of(JdbcDialect dialect, Tables tables) {
        return switch (dialect) {
            case POSTGRESQL -> new Postgres(tables);
            case MARIADB -> new MariaDb(tables);
            case H2 -> new H2(tables);
        };
    }

    public JdbcDialect dialect() {
        return dialect;
    }

    /** The statement that calls routine {@code name} with {@code arity} bound parameters. */
    public String call(String name, int arity) {
        return callVerb + prefix + name + "(" + params(leadingParams + arity) + ")";
    }

    /** Binds what {@link #call} needs before the routine's own parameters; returns the next index. */
    public int bindPrefix(PreparedStatement statement) throws SQLException {
        return 1;
    }

    /** SQL for "the given instant, or the database's clock when it is null" (one bound parameter). */
    protected String nowOr() {
        return nowOr;
    }

    /**
     * Binds an instant (null: SQL NULL). PostgreSQL's {@code timestamptz} and H2's {@code TIMESTAMP
     * WITH TIME ZONE} take an {@link OffsetDateTime} at UTC; MariaDB overrides this.
     */
    public void bindInstant(PreparedStatement statement, int index, @Nullable Instant instant) throws SQLException {
        if (instant == null) {
            statement.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        } else {
            statement.setObject(index, micros(instant).atOffset(ZoneOffset.UTC));
        }
    }

    public @Nullable Instant readInstant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    /** Whether this connection needs its isolation switched to READ COMMITTED before a call. */
    public boolean checksIsolation() {
        return false;
    }

    public String findBooking() {
        return "SELECT " + BOOKING_COLUMNS + " FROM " + tables.booking() + " WHERE tenant_id = ? AND booking_id = ?";
    }

    public String findByRequest() {
        return "SELECT " + BOOKING_COLUMNS + " FROM " + tables.booking() + " WHERE tenant_id = ? AND request_id = ?";
    }

    /** Slot columns, then live holds and confirmed seats; parameters: now-or-null, now-or-null, tenant, slot. */
    public String availability() {
        String seat = tables.seat();
        return "SELECT " + SLOT_COLUMNS + ","
                + " (SELECT COUNT(*) FROM " + seat + " h WHERE h.tenant_id = s.tenant_id AND h.slot_id = s.slot_id"
                + " AND h.status = 'HELD' AND h.held_until > " + nowOr() + ") AS held,"
                + " (SELECT COUNT(*) FROM " + seat + " c WHERE c.tenant_id = s.tenant_id AND c.slot_id = s.slot_id"
                + " AND c.status = 'CONFIRMED') AS confirmed"
                + " FROM " + tables.slot() + " s WHERE s.tenant_id = ? AND s.slot_id = ?";
    }

    /** Slot columns and each live booking (none: one row of NULL booking columns); parameters: now, tenant, slot. */
    public String liveSlot() {
        return "SELECT " + prefixed("s.", SLOT_COLUMNS) + ","
                + " b.booking_id, b.request_id, b.student_id, b.seat, b.status AS booking_status, b.held_until,"
                + " b.created_at, b.updated_at, b.package_id, b.credits, b.attendance"
                + " FROM " + tables.slot() + " s LEFT JOIN " + tables.booking() + " b"
                + " ON b.tenant_id = s.tenant_id AND b.slot_id = s.slot_id"
                + " AND (b.status = 'CONFIRMED' OR (b.status = 'HELD' AND b.held_until > " + nowOr() + "))"
                + " WHERE s.tenant_id = ? AND s.slot_id = ? ORDER BY b.seat";
    }

    /** Parameters: tenant, request id. The position is the 8th column (0 when not waiting). */
    public String findWaiter() {
        String waiter = tables.waiter();
        return "SELECT " + prefixed("w.", WAITER_COLUMNS) + ", CASE WHEN w.status = 'WAITING' THEN"
                + " (SELECT COUNT(*) FROM " + waiter + " o WHERE o.tenant_id = w.tenant_id AND o.slot_id = w.slot_id"
                + " AND o.status = 'WAITING' AND o.seq <= w.seq) ELSE 0 END AS position"
                + " FROM " + waiter + " w WHERE w.tenant_id = ? AND w.request_id = ?";
    }

    /** The waiting entries of a slot in order; parameters: tenant, slot, limit, offset. */
    public String waitlist() {
        return "SELECT " + WAITER_COLUMNS + " FROM " + tables.waiter()
                + " WHERE tenant_id = ? AND slot_id = ? AND status = 'WAITING' ORDER BY seq LIMIT ? OFFSET ?";
    }

    /** Live bookings of a slot by seat; parameters: tenant, slot, now-or-null, limit, offset. */
    public String roster() {
        return "SELECT " + BOOKING_COLUMNS + " FROM " + tables.booking()
                + " WHERE tenant_id = ? AND slot_id = ? AND status IN ('HELD', 'CONFIRMED')"
                + " AND (status = 'CONFIRMED' OR held_until > " + nowOr() + ") ORDER BY seat LIMIT ? OFFSET ?";
    }

    /**
     * A student's bookings with their slots, through the student's active occupations (a live or a
     * confirmed booking keeps its occupation); parameters: tenant, student, now-or-null (twice when
     * upcoming, else once), limit, offset.
     */
    public String studentBookings(boolean upcoming) {
        return "SELECT " + prefixed("b.", BOOKING_COLUMNS) + ", " + prefixed("s.", SLOT_COLUMNS)
                + " FROM " + tables.occupancy() + " o"
                + " JOIN " + tables.booking() + " b ON b.tenant_id = o.tenant_id AND b.booking_id = o.booking_id"
                + " JOIN " + tables.slot() + " s ON s.tenant_id = b.tenant_id AND s.slot_id = b.slot_id"
                + " WHERE o.tenant_id = ? AND o.resource_kind = 'STUDENT' AND o.resource_id = ? AND o.active"
                + (upcoming
                    ? " AND s.ends_at > " + nowOr() + " AND (b.status = 'CONFIRMED' OR (b.status = 'HELD'"
                        + " AND b.held_until > " + nowOr() + ")) ORDER BY s.starts_at, " + byId("b.booking_id")
                    : " AND s.ends_at <= " + nowOr() + " AND b.status = 'CONFIRMED'"
                        + " ORDER BY s.starts_at DESC, " + byId("b.booking_id") + " DESC")
                + " LIMIT ? OFFSET ?";
    }

    /**
     * The open slots of a coach or room overlapping a range, through their occupations; parameters:
     * tenant, kind, id, range end, range start, limit, offset.
     */
    public String timetable() {
        return "SELECT " + prefixed("s.", SLOT_COLUMNS) + " FROM " + tables.occupancy() + " o"
                + " JOIN " + tables.slot() + " s ON s.tenant_id = o.tenant_id AND s.slot_id = o.slot_id"
                + " WHERE o.tenant_id = ? AND o.resource_kind = ? AND o.resource_id = ? AND o.active"
                + " AND o.booking_id IS NULL AND o.starts_at < ? AND s.ends_at > ? AND s.status = 'OPEN'"
                + " ORDER BY s.starts_at, " + byId("s.slot_id") + " LIMIT ? OFFSET ?";
    }

    /** A student's packages in the order they pay; parameters: tenant, student, limit, offset. */
    public String packages() {
        return "SELECT " + PACKAGE_COLUMNS + " FROM " + tables.lessonPackage()
                + " WHERE tenant_id = ? AND student_id = ? ORDER BY valid_until, " + byId("package_id")
                + " LIMIT ? OFFSET ?";
    }

    /** A package's journal in the order it was written; parameters: tenant, package, limit, offset. */
    public String creditJournal() {
        return "SELECT " + CREDIT_COLUMNS + " FROM " + tables.creditEntry()
                + " WHERE tenant_id = ? AND package_id = ? ORDER BY seq LIMIT ? OFFSET ?";
    }

    /**
     * The open occurrences of a series starting after an instant (null: the database's now), by start;
     * parameters: tenant, series, after-or-null, limit.
     */
    public String seriesSlots() {
        return "SELECT " + SLOT_COLUMNS + " FROM " + tables.slot()
                + " WHERE tenant_id = ? AND series_id = ? AND status = 'OPEN' AND starts_at > " + nowOr()
                + " ORDER BY starts_at, " + byId("slot_id") + " LIMIT ?";
    }

    /**
     * An id column as an ORDER BY key in code point order, the order of every id: the column itself where
     * it compares that way ({@code COLLATE "C"}, {@code utf8mb4_bin}).
     */
    String byId(String column) {
        return column;
    }

    static String prefixed(String alias, String columns) {
        return alias + String.join(", " + alias, columns.split(", "));
    }

    /**
     * One page of a tenant's slots in slot id order (Unicode code point order, as every id is ordered:
     * the id columns compare that way on PostgreSQL, {@code COLLATE "C"}, and MariaDB, {@code utf8mb4_bin}).
     */
    public String slots(boolean after) {
        return "SELECT " + SLOT_COLUMNS + " FROM " + tables.slot() + " WHERE tenant_id = ?"
                + (after ? " AND slot_id > ?" : "") + " ORDER BY slot_id LIMIT ?";
    }

    /**
     * One page of the tenants that have a slot, in id order (code point order, as {@link #slots});
     * served by the slot primary key (tenant_id, slot_id).
     */
    public String tenants(boolean after) {
        return "SELECT DISTINCT tenant_id FROM " + tables.slot() + (after ? " WHERE tenant_id > ?" : "")
                + " ORDER BY tenant_id LIMIT ?";
    }

    static Instant micros(Instant instant) {
        return instant.truncatedTo(ChronoUnit.MICROS);
    }

    /** PostgreSQL: PL/pgSQL functions returning the fact rows. */
    static final class Postgres extends SqlDialect {
        Postgres(Tables tables) {
            super(tables, JdbcDialect.POSTGRESQL, "SELECT * FROM ", 0,
                    "COALESCE(CAST(? AS timestamptz), statement_timestamp())");
        }

        @Override
        public boolean checksIsolation() {
            return true;
        }

        /**
         * The live holds and the confirmed seats counted together over the seats that have a student: the
         * partial student index holds exactly those, so the free seats of a large slot are never read (the
         * status alone has no index here, and the primary key would walk every seat of the slot).
         */
        @Override
        public String availability() {
            return "SELECT " + SLOT_COLUMNS + ", b.held, b.confirmed FROM " + tables.slot() + " s CROSS JOIN LATERAL"
                    + " (SELECT COUNT(*) FILTER (WHERE c.status = 'HELD' AND c.held_until > " + nowOr() + ") AS held,"
                    + " COUNT(*) FILTER (WHERE c.status = 'CONFIRMED') AS confirmed FROM " + tables.seat() + " c"
                    + " WHERE c.tenant_id = s.tenant_id AND c.slot_id = s.slot_id AND c.student_id IS NOT NULL) b"
                    + " WHERE s.tenant_id = ? AND s.slot_id = ?";
        }
    }

    /** MariaDB and MySQL: stored procedures that run their own READ COMMITTED transaction. */
    static final class MariaDb extends SqlDialect {
        MariaDb(Tables tables) {
            super(tables, JdbcDialect.MARIADB, "CALL ", 0, "COALESCE(?, UTC_TIMESTAMP(6))");
        }

        @Override
        public void bindInstant(PreparedStatement statement, int index, @Nullable Instant instant) throws SQLException {
            if (instant == null) {
                statement.setNull(index, Types.TIMESTAMP);
            } else {
                statement.setObject(index, LocalDateTime.ofInstant(micros(instant), ZoneOffset.UTC));
            }
        }

        @Override
        public @Nullable Instant readInstant(ResultSet rs, int column) throws SQLException {
            LocalDateTime value = rs.getObject(column, LocalDateTime.class);
            return value == null ? null : value.toInstant(ZoneOffset.UTC);
        }
    }

    /**
     * H2: Java routines registered as aliases; they take the table prefix as their first argument.
     * Called from FROM: H2 parses a CALL of a table function when preparing it and again when running it, a
     * SELECT from it (kept in the session's cache) only when running it.
     */
    static final class H2 extends SqlDialect {
        H2(Tables tables) {
            super(tables, JdbcDialect.H2, "SELECT * FROM ", 1,
                    "COALESCE(CAST(? AS TIMESTAMP(6) WITH TIME ZONE), CURRENT_TIMESTAMP(6))");
        }

        @Override
        public int bindPrefix(PreparedStatement statement) throws SQLException {
            statement.setString(1, prefix);
            return 2;
        }

        /**
         * H2 compares VARCHAR by UTF-16 code unit ({@link String#compareTo}), which puts an id with a
         * character above U+FFFF before one with a character in U+E000..U+FFFF; its VARBINARY compares
         * unsigned, and an id cast to VARBINARY is its UTF-8 bytes, whose unsigned order is code point
         * order. The page is ordered by that key (a scan of the tenant's slots instead of an index range:
         * H2 is the embedded, small-scale backend).
         */
        @Override
        public String slots(boolean after) {
            return "SELECT " + SLOT_COLUMNS + " FROM " + tables.slot() + " WHERE tenant_id = ?"
                    + (after ? " AND " + BINARY_SLOT + " > CAST(? AS VARBINARY)" : "")
                    + " ORDER BY " + BINARY_SLOT + " LIMIT ?";
        }

        /** H2: the id's UTF-8 bytes (see {@link #slots}). */
        @Override
        String byId(String column) {
            return "CAST(" + column + " AS VARBINARY)";
        }

        /** As {@link #slots}: in code point order, by the ids' UTF-8 bytes. */
        @Override
        public String tenants(boolean after) {
            return "SELECT tenant_id FROM (SELECT DISTINCT tenant_id FROM " + tables.slot() + ") t"
                    + (after ? " WHERE " + BINARY_TENANT + " > CAST(? AS VARBINARY)" : "")
                    + " ORDER BY " + BINARY_TENANT + " LIMIT ?";
        }

        private static final String BINARY_SLOT = "CAST(slot_id AS VARBINARY)";
        private static final String BINARY_TENANT = "CAST(tenant_id AS VARBINARY)";
    }

    static String params(int arity) {
        StringBuilder sql = new StringBuilder(arity * 3);
        for (int i = 0; i < arity; i++) {
            sql.append(i == 0 ? "?" : ", ?");
        }
        return sql.toString();
    }

    /** Whether {@code connection} runs at READ COMMITTED (asked once per physical connection by the caller). */
    static boolean readCommitted(Connection connection) throws SQLException {
        return connection.getTransactionIsolation() == Connection.TRANSACTION_READ_COMMITTED;
    }
}
