package org.slotbook.examples.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.slotbook.jdbc.JdbcDialect;

/**
 * A database's ceiling: one autocommit statement per request that claims a free seat of the picked
 * slot in a plain seat table of its own, in the dialect's single-statement form, from the same
 * threads and pool as the Slotbook lines.
 */
public final class DbCeilingLine {
    public static final String NAME = "ceiling: single-statement claim";
    static final String TABLE = "bench_seat";

    private DbCeilingLine() {
    }

    /** Creates the line's table in {@code db} unless it is there. */
    static void prepare(BenchDb db) throws SQLException {
        db.execute("CREATE TABLE IF NOT EXISTS " + db.table(TABLE) + " (run_id VARCHAR(40) NOT NULL,"
                + " slot_id INTEGER NOT NULL, seq INTEGER NOT NULL, owner VARCHAR(40), PRIMARY KEY (run_id, slot_id, seq))");
    }

    /** The line's seats inserted, ready to be measured in turns. */
    static Turns prepare(BenchDb db, Workload w, Suite suite) throws Exception {
        String table = db.table(TABLE);
        String runId = w.runId();
        DataSource ds = db.backends().dataSource();
        insertSeats(ds, table, runId, w);
        boolean postgres = db.dialect() == JdbcDialect.POSTGRESQL;
        String sql = switch (db.dialect()) {
            case POSTGRESQL -> "WITH c AS (SELECT seq FROM " + table
                    + " WHERE run_id = ? AND slot_id = ? AND owner IS NULL ORDER BY seq LIMIT 1"
                    + " FOR UPDATE SKIP LOCKED) UPDATE " + table + " s SET owner = ? FROM c"
                    + " WHERE s.run_id = ? AND s.slot_id = ? AND s.seq = c.seq";
            case MARIADB -> "UPDATE " + table + " SET owner = ? WHERE run_id = ? AND slot_id = ? AND owner IS NULL"
                    + " ORDER BY seq LIMIT 1";
            case H2 -> "UPDATE " + table + " SET owner = ? WHERE run_id = ? AND slot_id = ? AND owner IS NULL"
                    + " FETCH FIRST 1 ROW ONLY";
        };
        int[] pick = w.picks(runId.hashCode());
        Profiler profiler = suite.profiler(db, postgres && w.name().equals("spread"));
        return new Turns() {
            @Override
            public Measured run(int from, int to) throws Exception {
                return Suite.turn(profiler, w, from, to, (thread, i) -> {
                    try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
                        String owner = "student-" + i;
                        if (postgres) {
                            ps.setString(1, runId);
                            ps.setInt(2, pick[i]);
                            ps.setString(3, owner);
                            ps.setString(4, runId);
                            ps.setInt(5, pick[i]);
                        } else {
                            ps.setString(1, owner);
                            ps.setString(2, runId);
                            ps.setInt(3, pick[i]);
                        }
                        return ps.executeUpdate() == 1;
                    }
                });
            }

            @Override
            public Result finish(Measured all) {
                suite.keepProfile(profiler, w.name() + ", " + NAME + " (" + db.name() + ")");
                return all.result(w.name(), NAME, db.name(), w.threads(), null, null, "");
            }
        };
    }

    /** Every seat of every slot of the workload, free, in batches of 100 slots. */
    private static void insertSeats(DataSource ds, String table, String runId, Workload w) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO " + table + " (run_id, slot_id, seq, owner) VALUES (?, ?, ?, NULL)")) {
            c.setAutoCommit(false);
            for (int slot = 0; slot < w.slots(); slot++) {
                for (int seq = 1; seq <= w.seats(); seq++) {
                    ps.setString(1, runId);
                    ps.setInt(2, slot);
                    ps.setInt(3, seq);
                    ps.addBatch();
                }
                if (slot % 100 == 99) {
                    ps.executeBatch();
                }
            }
            ps.executeBatch();
            c.commit();
            c.setAutoCommit(true);
        }
    }
}
