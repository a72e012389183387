package org.slotbook.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * H2: writes the booking events of a routine's fact rows (EV_* but EV_SKIPPED) into the outbox, on the
 * routine's own connection, inside its call: the decision and its events commit together. PostgreSQL and
 * MariaDB do the same in their routines (event_rows, outbox_write).
 */
final class OutboxWrites {
    private OutboxWrites() {
    }

    /**
     * Inserts the events among {@code rows} (the 20 fact columns each) for {@code tenant}, in order.
     *
     * @param now the call's instant, the events' written_at when a row has no updated_at
     */
    static void write(Connection connection, String prefix, String tenant, List<Object[]> rows, OffsetDateTime now)
            throws SQLException {
        PreparedStatement insert = null;
        try {
            for (Object[] row : rows) {
                String tag = (String) row[0];
                if (tag == null || !tag.startsWith("EV_") || "EV_SKIPPED".equals(tag)) {
                    continue;
                }
                if (insert == null) {
                    insert = connection.prepareStatement("INSERT INTO " + prefix + "event (tenant_id, kind, booking_id,"
                            + " request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at,"
                            + " package_id, credits, attendance, written_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
                            + " ?, ?, ?)");
                }
                insert.setString(1, tenant);
                insert.setString(2, tag.substring(3));
                for (int c = 1; c <= 4; c++) {
                    insert.setString(c + 2, text(row[c]));
                }
                insert.setInt(7, ((Number) row[5]).intValue());
                insert.setString(8, text(row[6]));
                insert.setObject(9, row[7]);
                insert.setObject(10, row[8]);
                insert.setObject(11, row[9]);
                if (row[17] == null) {
                    insert.setNull(12, Types.VARCHAR);
                } else {
                    insert.setString(12, text(row[17]));
                }
                insert.setInt(13, row[18] == null ? 0 : ((Number) row[18]).intValue());
                insert.setString(14, row[19] == null ? "NONE" : text(row[19]));
                insert.setObject(15, row[9] != null ? row[9] : now);
                insert.addBatch();
            }
            if (insert != null) {
                insert.executeBatch();
            }
        } finally {
            if (insert != null) {
                insert.close();
            }
        }
    }

    private static String text(Object value) {
        return value == null ? null : value.toString();
    }
}
