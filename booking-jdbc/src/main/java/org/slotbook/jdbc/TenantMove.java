package org.slotbook.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.TenantId;
import org.slotbook.jdbc.internal.Tables;

/**
 * Moves one tenant's rows from one shard's database to another's with plain SQL ({@code SELECT * ...
 * WHERE tenant_id = ?} on the source, batched {@code INSERT} on the target), the data step of moving a
 * tenant between the shards of a {@link org.slotbook.core.shard.TenantRoutedStore}. Each database keeps
 * a fence ({@code tenant_fence}: no row, or {@code OWNED}, means it serves the tenant; {@code FENCED} or
 * {@code MOVED} means every decision of the tenant there is refused with a retryable
 * {@link org.slotbook.core.TenantFencedException}), so the tenant's traffic need not be stopped by the
 * host. The whole procedure, in this order:
 *
 * <ol>
 *   <li>{@link #copy}: fences the tenant on the target (a node that switched early is refused there),
 *       then on the source, waiting for every decision of the tenant that had read the source's fence
 *       before to end (from then on each call of the tenant on the source is refused, a node whose
 *       mapping is stale included); copies every row of the tenant, table by table, read in one snapshot
 *       of the source and written in one transaction of the target (refused when the target already
 *       holds a row of the tenant; the row counts are checked on both sides before the target commits);
 *       then opens the target and marks the source {@code MOVED}. Should it fail before the target is
 *       open, both fences are put back as they were;</li>
 *   <li>switch the host's mapping so that the tenant's next call goes to the target shard (a node that
 *       misses the switch keeps being refused by the source, retryably, and loses nothing);</li>
 *   <li>reconcile the gate for the tenant ({@code engine.reconcileAll(tenant)}), so Redis agrees with
 *       the ledger it now reads from;</li>
 *   <li>{@link #deleteFromSource}: the source's rows of the tenant go; its fence row stays {@code MOVED}.</li>
 * </ol>
 *
 * Both databases run the shipped schema under the given prefixes, of the same dialect (a copy between
 * dialects is not supported: column types differ). Generated keys are not copied (the
 * {@code occupancy.id} identity, the waitlist's and the credit journal's {@code seq}, the outbox's {@code event_id}
 * (its positions are copied as they are): the target numbers
 * those rows itself, in the source's order, and nothing refers to them). Lesson packages and their credit
 * journal move with the tenant, so its balances add up on the target as they did on the source.
 * Tables added to the schema later are named with {@link Builder#table}. The fence waits for the
 * tenant's calls in flight: on PostgreSQL under the tenant's fence lock (an advisory lock every decision
 * takes shared), on MariaDB under {@code LOCK TABLES tenant_fence WRITE} (every decision reads the table
 * in its transaction; the lock waits for the calls of all tenants in flight on that database and holds
 * the next ones for as long as one write of the fence takes). On H2 (one process) the fence is written
 * without waiting.
 */
public final class TenantMove {
    /** The shipped tables, parents first. */
    private static final List<String> TABLES = List.of("slot", "slot_seat", "booking", "occupancy", "resource_lock",
            "waiter", "lesson_package", "credit_entry", "event", "event_head", "event_cursor");
    /** Columns the database fills itself, left out of the copy. */
    private static final Map<String, Set<String>> GENERATED = Map.of("occupancy", Set.of("id"), "waiter", Set.of("seq"),
            "credit_entry", Set.of("seq"), "event", Set.of("event_id"));
    /**
     * Tables whose rows are copied in an order the target's generated column must keep (the waitlist's
     * line, the order of the credit journal).
     */
    private static final Map<String, String> ORDER = Map.of("waiter", " ORDER BY seq", "credit_entry", " ORDER BY seq",
            "event", " ORDER BY event_id");
    private static final int BATCH = 500;
    private static final String OWNED = "OWNED";
    private static final String FENCED = "FENCED";
    private static final String MOVED = "MOVED";

    private final DataSource source;
    private final DataSource target;
    private final String sourcePrefix;
    private final String targetPrefix;
    private final List<String> tables;

    private TenantMove(Builder b) {
        this.source = b.source;
        this.target = b.target;
        this.sourcePrefix = b.sourcePrefix;
        this.targetPrefix = b.targetPrefix;
        this.tables = List.copyOf(b.tables);
    }

    /**
     * A move from the database of {@code source} to that of {@code target}, both with the default prefix.
     *
     * @param source the database the tenant moves from
     * @param target the database the tenant moves to
     * @return a builder of the move
     */
    public static Builder builder(DataSource source, DataSource target) {
        return new Builder(source, target);
    }

    /**
     * Fences the tenant on both databases, copies every row of it from the source to the target in one
     * target transaction, opens the target and marks the source {@code MOVED}; answers the rows copied
     * per table. The tenant's calls meanwhile are refused with a retryable
     * {@link org.slotbook.core.TenantFencedException} on both databases; nothing the source decided before
     * its fence is left out of the copy.
     *
     * @param tenant the tenant to move
     * @return rows copied per table
     * @throws IllegalStateException  when the target already holds rows of the tenant, or the source does not
     *                                serve it (it was moved away); nothing written
     * @throws BookingStoreException when a database fails (nothing copied; the fences as they were)
     */
    public Map<String, Integer> copy(TenantId tenant) {
        if (tenant == null) {
            throw new InvalidInputException("tenantId must not be null");
        }
        Fence sourceBefore;
        Fence targetBefore;
        try (Connection from = source.getConnection(); Connection to = target.getConnection()) {
            Map<String, Integer> before = counts(to, targetPrefix, tenant);
            if (before.values().stream().anyMatch(n -> n > 0)) {
                throw new IllegalStateException("the target already holds rows of tenant '" + tenant.value()
                        + "' " + before + "; nothing was copied");
            }
            sourceBefore = fenceOf(from, sourcePrefix, tenant);
            targetBefore = fenceOf(to, targetPrefix, tenant);
        } catch (SQLException e) {
            throw new BookingStoreException("copy of tenant '" + tenant.value() + "' failed: " + e.getMessage(), e,
                    true, false);
        }
        if (sourceBefore != null && MOVED.equals(sourceBefore.state())) {
            throw new IllegalStateException("the source does not serve tenant '" + tenant.value() + "' (moved away at"
                    + " fence epoch " + sourceBefore.epoch() + "); nothing was copied");
        }
        long epoch = 1 + Math.max(sourceBefore == null ? 0 : sourceBefore.epoch(),
                targetBefore == null ? 0 : targetBefore.epoch());
        boolean opened = false;
        try {
            setFence(target, targetPrefix, tenant, new Fence(FENCED, epoch));
            setFence(source, sourcePrefix, tenant, new Fence(FENCED, epoch));
            Map<String, Integer> copied = copyRows(tenant);
            // the target first: should the source's mark fail, its FENCED row refuses as MOVED would
            setFence(target, targetPrefix, tenant, new Fence(OWNED, epoch));
            opened = true;
            setFence(source, sourcePrefix, tenant, new Fence(MOVED, epoch));
            return copied;
        } catch (RuntimeException e) {
            if (!opened) {
                try {
                    setFence(source, sourcePrefix, tenant, sourceBefore == null ? null : new Fence(OWNED, epoch));
                    setFence(target, targetPrefix, tenant, targetBefore);
                } catch (RuntimeException undo) {
                    e.addSuppressed(undo);
                }
            }
            throw e;
        }
    }

    /**
     * The fence of {@code tenant} on a database, or null when it has no row there (served).
     *
     * @param onTarget the target's (true) or the source's (false)
     * @param tenant   the tenant
     * @return its state ({@code OWNED}, {@code FENCED}, {@code MOVED}) and epoch, or null
     */
    public Fence fence(boolean onTarget, TenantId tenant) {
        if (tenant == null) {
            throw new InvalidInputException("tenantId must not be null");
        }
        try (Connection c = (onTarget ? target : source).getConnection()) {
            return fenceOf(c, onTarget ? targetPrefix : sourcePrefix, tenant);
        } catch (SQLException e) {
            throw new BookingStoreException("could not read the fence of tenant '" + tenant.value() + "': "
                    + e.getMessage(), e, true, false);
        }
    }

    /** Copies the rows (the source fenced): one snapshot of the source, one transaction of the target. */
    private Map<String, Integer> copyRows(TenantId tenant) {
        try (Connection from = source.getConnection(); Connection to = target.getConnection()) {
            from.setAutoCommit(false);
            from.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            from.setReadOnly(true);
            to.setAutoCommit(false);
            try {
                Map<String, Integer> before = counts(to, targetPrefix, tenant);
                if (before.values().stream().anyMatch(n -> n > 0)) {
                    throw new IllegalStateException("the target already holds rows of tenant '" + tenant.value()
                            + "' " + before + "; nothing was copied");
                }
                Map<String, Integer> copied = new LinkedHashMap<>();
                for (String table : tables) {
                    copied.put(table, copyTable(from, to, table, tenant));
                }
                Map<String, Integer> expected = counts(from, sourcePrefix, tenant);
                Map<String, Integer> written = counts(to, targetPrefix, tenant);
                if (!expected.equals(written) || !expected.equals(copied)) {
                    throw new IllegalStateException("copy of tenant '" + tenant.value() + "' does not add up: source "
                            + expected + ", target " + written + "; nothing was copied");
                }
                to.commit();
                rollbackQuietly(from);
                return Collections.unmodifiableMap(copied);
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(to);
                rollbackQuietly(from);
                throw e;
            }
        } catch (SQLException e) {
            throw new BookingStoreException("copy of tenant '" + tenant.value() + "' failed: " + e.getMessage(), e,
                    true, false);
        }
    }

    /**
     * Deletes every row of {@code tenant} from the source (children first) in one transaction; answers the rows
     * deleted.
     *
     * @param tenant the tenant whose rows to delete, once copied
     * @return the rows deleted
     */
    public int deleteFromSource(TenantId tenant) {
        if (tenant == null) {
            throw new InvalidInputException("tenantId must not be null");
        }
        try (Connection c = source.getConnection()) {
            c.setAutoCommit(false);
            try {
                int deleted = 0;
                List<String> reversed = new ArrayList<>(tables);
                Collections.reverse(reversed);
                for (String table : reversed) {
                    try (PreparedStatement ps = c.prepareStatement(
                            "DELETE FROM " + sourcePrefix + table + " WHERE tenant_id = ?")) {
                        ps.setString(1, tenant.value());
                        deleted += ps.executeUpdate();
                    }
                }
                c.commit();
                return deleted;
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(c);
                throw e;
            }
        } catch (SQLException e) {
            throw new BookingStoreException("delete of tenant '" + tenant.value() + "' failed: " + e.getMessage(), e,
                    true, false);
        }
    }

    private int copyTable(Connection from, Connection to, String table, TenantId tenant) throws SQLException {
        Set<String> skip = GENERATED.getOrDefault(table, Set.of());
        try (PreparedStatement select = from.prepareStatement(
                "SELECT * FROM " + sourcePrefix + table + " WHERE tenant_id = ?" + ORDER.getOrDefault(table, ""))) {
            select.setString(1, tenant.value());
            try (ResultSet rs = select.executeQuery()) {
                ResultSetMetaData meta = rs.getMetaData();
                List<Integer> columns = new ArrayList<>();
                List<String> names = new ArrayList<>();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    String name = meta.getColumnLabel(i).toLowerCase(Locale.ROOT);
                    if (!skip.contains(name)) {
                        columns.add(i);
                        names.add(name);
                    }
                }
                String insert = "INSERT INTO " + targetPrefix + table + " (" + String.join(", ", names) + ") VALUES ("
                        + String.join(", ", Collections.nCopies(names.size(), "?")) + ")";
                int rows = 0;
                try (PreparedStatement ps = to.prepareStatement(insert)) {
                    int pending = 0;
                    while (rs.next()) {
                        for (int k = 0; k < columns.size(); k++) {
                            ps.setObject(k + 1, rs.getObject(columns.get(k)));
                        }
                        ps.addBatch();
                        rows++;
                        if (++pending == BATCH) {
                            ps.executeBatch();
                            pending = 0;
                        }
                    }
                    if (pending > 0) {
                        ps.executeBatch();
                    }
                }
                return rows;
            }
        }
    }

    private Map<String, Integer> counts(Connection c, String prefix, TenantId tenant) throws SQLException {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (String table : tables) {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT COUNT(*) FROM " + prefix + table + " WHERE tenant_id = ?")) {
                ps.setString(1, tenant.value());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    counts.put(table, rs.getInt(1));
                }
            }
        }
        return counts;
    }

    private static Fence fenceOf(Connection c, String prefix, TenantId tenant) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT state, epoch FROM " + prefix + "tenant_fence WHERE tenant_id = ?")) {
            ps.setString(1, tenant.value());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new Fence(rs.getString(1), rs.getLong(2)) : null;
            }
        }
    }

    /**
     * Writes the fence of {@code tenant} on a database (null: no row, served), once every decision of the
     * tenant that read the fence before has ended (see the class's note per dialect).
     */
    private static void setFence(DataSource database, String prefix, TenantId tenant, Fence fence) {
        String table = prefix + "tenant_fence";
        try (Connection c = database.getConnection()) {
            JdbcDialect dialect = JdbcDialect.forProductName(c.getMetaData().getDatabaseProductName());
            String write = fence == null ? "DELETE FROM " + table + " WHERE tenant_id = ?" : switch (dialect) {
                case POSTGRESQL -> "INSERT INTO " + table + " (tenant_id, state, epoch, updated_at)"
                        + " VALUES (?, ?, ?, clock_timestamp()) ON CONFLICT (tenant_id) DO UPDATE"
                        + " SET state = EXCLUDED.state, epoch = EXCLUDED.epoch, updated_at = EXCLUDED.updated_at";
                case MARIADB -> "INSERT INTO " + table + " (tenant_id, state, epoch, updated_at)"
                        + " VALUES (?, ?, ?, UTC_TIMESTAMP(6)) ON DUPLICATE KEY UPDATE"
                        + " state = VALUES(state), epoch = VALUES(epoch), updated_at = VALUES(updated_at)";
                case H2 -> "MERGE INTO " + table + " (tenant_id, state, epoch, updated_at) KEY (tenant_id)"
                        + " VALUES (?, ?, ?, CURRENT_TIMESTAMP(6))";
            };
            if (dialect == JdbcDialect.MARIADB) {
                c.setAutoCommit(true);
                try (Statement lock = c.createStatement()) {
                    lock.execute("LOCK TABLES " + table + " WRITE");
                    try {
                        writeFence(c, write, tenant, fence);
                    } finally {
                        lock.execute("UNLOCK TABLES");
                    }
                }
                return;
            }
            c.setAutoCommit(false);
            try {
                if (dialect == JdbcDialect.POSTGRESQL) {
                    try (PreparedStatement lock = c.prepareStatement(
                            "SELECT pg_advisory_xact_lock(hashtextextended(? || chr(30) || ?, 0))")) {
                        lock.setString(1, prefix);
                        lock.setString(2, tenant.value());
                        lock.execute();
                    }
                }
                writeFence(c, write, tenant, fence);
                c.commit();
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(c);
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw new BookingStoreException("could not write the fence of tenant '" + tenant.value() + "': "
                    + e.getMessage(), e, true, false);
        }
    }

    private static void writeFence(Connection c, String write, TenantId tenant, Fence fence) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(write)) {
            ps.setString(1, tenant.value());
            if (fence != null) {
                ps.setString(2, fence.state());
                ps.setLong(3, fence.epoch());
            }
            ps.executeUpdate();
        }
    }

    /**
     * A tenant's fence on one database: {@code OWNED} (served), {@code FENCED} (a move is under way) or
     * {@code MOVED} (served elsewhere), and the move's epoch (counts the tenant's moves).
     *
     * @param state the state
     * @param epoch the epoch
     */
    public record Fence(String state, long epoch) {
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the connection is being closed anyway
        }
    }

    /** Builds a {@link TenantMove}. */
    public static final class Builder {
        private final DataSource source;
        private final DataSource target;
        private String sourcePrefix = Tables.DEFAULT_PREFIX;
        private String targetPrefix = Tables.DEFAULT_PREFIX;
        private final List<String> tables = new ArrayList<>(TABLES);

        private Builder(DataSource source, DataSource target) {
            if (source == null) {
                throw new InvalidInputException("source must not be null");
            }
            if (target == null) {
                throw new InvalidInputException("target must not be null");
            }
            this.source = source;
            this.target = target;
        }

        /**
         * The table prefix on the source database (default {@code slotbook_}).
         *
         * @param prefix the table prefix: empty or up to 24 characters of a-z, 0-9 and _
         * @return this builder
         */
        public Builder sourcePrefix(String prefix) {
            this.sourcePrefix = Tables.checkPrefix(prefix);
            return this;
        }

        /**
         * The table prefix on the target database (default {@code slotbook_}).
         *
         * @param prefix the table prefix: empty or up to 24 characters of a-z, 0-9 and _
         * @return this builder
         */
        public Builder targetPrefix(String prefix) {
            this.targetPrefix = Tables.checkPrefix(prefix);
            return this;
        }

        /**
         * One more table (name without prefix, with a {@code tenant_id} column) to copy after the shipped ones.
         *
         * @param name the table's name without prefix
         * @return this builder
         */
        public Builder table(String name) {
            if (name == null || !name.matches("[a-z_][a-z0-9_]{0,39}")) {
                throw new InvalidInputException("table must be a-z, 0-9 and _, got '" + name + "'");
            }
            if (!tables.contains(name)) {
                tables.add(name);
            }
            return this;
        }

        /** {@return the move} */
        public TenantMove build() {
            return new TenantMove(this);
        }
    }
}
