package org.slotbook.examples.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The naive line: what an unprotected backend does. Per request, in one READ COMMITTED transaction on
 * a plain table of its own, {@code SELECT COUNT(*)} of the slot's rows, then an {@code INSERT} when
 * the count is below the seats. Its oversold seats are counted afterwards by SQL.
 */
public final class NaiveLine {
    public static final String NAME = "naive: count, then insert";
    static final String TABLE = "bench_naive";

    private NaiveLine() {
    }

    /** Creates the line's table in {@code db} unless it is there. */
    static void prepare(BenchDb db) throws SQLException {
        String table = db.table(TABLE);
        db.execute("CREATE TABLE IF NOT EXISTS " + table + " (run_id VARCHAR(40) NOT NULL,"
                        + " slot_id INTEGER NOT NULL, student_id VARCHAR(40) NOT NULL)",
                "CREATE INDEX IF NOT EXISTS " + table + "_ix ON " + table + " (run_id, slot_id)");
    }

    /** The line, ready to be measured in turns (its table needs nothing per run). */
    static Turns prepare(BenchDb db, Workload w) {
        String table = db.table(TABLE);
        String runId = w.runId();
        int[] pick = w.picks(runId.hashCode());
        DataSource ds = db.backends().dataSource();
        return new Turns() {
            @Override
            public Measured run(int from, int to) throws Exception {
                return LoadDriver.threads(w.threads()).requests(from, to, (thread, i) -> {
                    try (Connection c = ds.getConnection()) {
                        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                        c.setAutoCommit(false);
                        try {
                            boolean booked = Backends.count(c, "SELECT COUNT(*) FROM " + table
                                    + " WHERE run_id = ? AND slot_id = ?", runId, pick[i]) < w.seats();
                            if (booked) {
                                try (PreparedStatement ps = c.prepareStatement(
                                        "INSERT INTO " + table + " (run_id, slot_id, student_id) VALUES (?, ?, ?)")) {
                                    ps.setString(1, runId);
                                    ps.setInt(2, pick[i]);
                                    ps.setString(3, "student-" + i);
                                    ps.executeUpdate();
                                }
                            }
                            c.commit();
                            return booked;
                        } catch (SQLException e) {
                            c.rollback();
                            throw e;
                        } finally {
                            c.setAutoCommit(true);
                        }
                    }
                });
            }

            @Override
            public Result finish(Measured all) throws SQLException {
                long oversold = 0;
                try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                        "SELECT COUNT(*) FROM " + table + " WHERE run_id = ? GROUP BY slot_id")) {
                    ps.setString(1, runId);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            oversold += Math.max(0, rs.getLong(1) - w.seats());
                        }
                    }
                }
                return all.result(w.name(), NAME, db.name(), w.threads(), oversold, null, "");
            }
        };
    }
}
